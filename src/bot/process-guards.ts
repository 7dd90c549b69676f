/**
 * Process-level safety nets: a stray rejection or exception is logged and the bot runs on (one bad event
 * must not take every server's bot down), and SIGINT/SIGTERM close things in order.
 */
import type { Logger } from '../logger.js';

export function installProcessGuards(logger: Logger, shutdown: () => Promise<void>): void {
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  process.on('uncaughtException', (error) => {
    logger.error({ err: error }, 'uncaught exception');
  });
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
