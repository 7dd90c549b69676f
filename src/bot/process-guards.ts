/**
 * Process-level safety nets: a stray rejection or exception is logged and the bot runs on (one bad event
 * must not take every server's bot down), and SIGINT/SIGTERM close things in order and exit 0.
 *
 * A shutdown that hangs (a board request that will not end, a store that will not close) must not keep
 * a container from stopping: after `forceExitAfterMs` the process exits 1 anyway, and a second signal
 * exits at once. Logs are flushed before every exit, since pino writes asynchronously.
 */
import type { Logger } from '../logger.js';

export interface ProcessGuardOptions {
  /** Exit with 1 this long after the first signal if shutdown has not finished. Default 15 s. */
  readonly forceExitAfterMs?: number;
  /** Writes out buffered log lines; called right before every exit. */
  readonly flush?: () => void;
  /** The process to guard; tests pass an EventEmitter. */
  readonly target?: Pick<NodeJS.EventEmitter, 'on'>;
  readonly exit?: (code: number) => void;
}

export const SHUTDOWN_COMPLETE = 'shutdown complete';

export function installProcessGuards(
  logger: Logger,
  shutdown: () => Promise<void>,
  options: ProcessGuardOptions = {},
): void {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const flush = options.flush ?? (() => undefined);
  const forceExitAfterMs = options.forceExitAfterMs ?? 15_000;

  target.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  target.on('uncaughtException', (error: unknown) => {
    logger.error({ err: error }, 'uncaught exception');
  });

  let closing = false;
  let exited = false;
  const finish = (code: number): void => {
    if (exited) return;
    exited = true;
    flush();
    exit(code);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      logger.warn({ signal }, 'second signal while shutting down: exiting now');
      finish(1);
      return;
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error({ forceExitAfterMs }, 'shutdown did not finish in time: exiting anyway');
      finish(1);
    }, forceExitAfterMs);
    force.unref();
    shutdown().then(
      () => {
        clearTimeout(force);
        logger.info(SHUTDOWN_COMPLETE);
        finish(0);
      },
      (error: unknown) => {
        clearTimeout(force);
        logger.error({ err: error }, 'shutdown failed');
        finish(1);
      },
    );
  };
  target.on('SIGINT', onSignal);
  target.on('SIGTERM', onSignal);
}
