/**
 * Process-level safety nets, and SIGINT/SIGTERM closing things in order and exiting 0.
 *
 * - An uncaught exception was thrown out of a callback (a timer, an event, a socket) halfway through its
 *   work: a store write, a reply or a socket may be left half done, and nothing says which. It is logged
 *   at fatal and the bot stops the way SIGTERM stops it (interactions in flight may finish, the store is
 *   closed, the logs flushed), then exits 1 so the supervisor starts a clean process.
 * - An unhandled rejection is logged at error and the bot runs on. The promise's own work unwound through
 *   its awaits like any handled failure; only its result was dropped (typically a floating call of a
 *   library). Restarting every server's bot for that would be the bigger harm, and the error line says
 *   where to add the missing handler.
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

  let closing = false;
  let exited = false;
  /** The exit code once shutdown has finished well: 1 after an uncaught exception, else 0. */
  let cleanExitCode = 0;
  const finish = (code: number): void => {
    if (exited) return;
    exited = true;
    flush();
    exit(code);
  };
  const beginShutdown = (): void => {
    closing = true;
    const force = setTimeout(() => {
      logger.error({ forceExitAfterMs }, 'shutdown did not finish in time: exiting anyway');
      finish(1);
    }, forceExitAfterMs);
    force.unref();
    shutdown().then(
      () => {
        clearTimeout(force);
        logger.info({ exitCode: cleanExitCode }, SHUTDOWN_COMPLETE);
        finish(cleanExitCode);
      },
      (error: unknown) => {
        clearTimeout(force);
        logger.error({ err: error }, 'shutdown failed');
        finish(1);
      },
    );
  };
  target.on('uncaughtException', (error: unknown) => {
    cleanExitCode = 1;
    if (closing) {
      // Already stopping (a signal, or an earlier exception): that shutdown now ends in exit 1, and the
      // force timer still bounds it.
      logger.fatal({ err: error }, 'uncaught exception while shutting down');
      return;
    }
    logger.fatal({ err: error }, 'uncaught exception: stopping, the process state cannot be trusted');
    beginShutdown();
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      logger.warn({ signal }, 'second signal while shutting down: exiting now');
      finish(1);
      return;
    }
    logger.info({ signal }, 'shutting down');
    beginShutdown();
  };
  target.on('SIGINT', onSignal);
  target.on('SIGTERM', onSignal);
}
