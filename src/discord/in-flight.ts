/**
 * Counts the handlers running (interactions, unfurls) so that stopping can wait for them. A handler is
 * meant to catch its own failures; one that rejects anyway (a fault before its own try) is logged here
 * with what it was handling, never left unhandled or silent.
 */
import type { Logger } from '../logger.js';

export interface InFlightTracker {
  readonly size: number;
  /** Counts `work` until it settles; a rejection is logged at error level with `context`. */
  track(work: Promise<unknown>, context: Readonly<Record<string, unknown>>): void;
  /** Resolves with how many are still running once all finished or `timeoutMs` passed. */
  idle(timeoutMs: number): Promise<number>;
}

export function createInFlightTracker(logger: Logger): InFlightTracker {
  const running = new Set<Promise<unknown>>();
  let onIdle: (() => void) | undefined;
  function settled(work: Promise<unknown>): void {
    running.delete(work);
    if (running.size === 0) onIdle?.();
  }
  return {
    get size() {
      return running.size;
    },
    track(work, context) {
      running.add(work);
      work.then(
        () => settled(work),
        (error: unknown) => {
          logger.error({ ...context, err: error }, 'handler failed outside its own error handling');
          settled(work);
        },
      );
    },
    async idle(timeoutMs) {
      if (running.size === 0 || timeoutMs <= 0) return running.size;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        onIdle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      onIdle = undefined;
      return running.size;
    },
  };
}
