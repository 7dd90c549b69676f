/**
 * A clock with timers that run only when the test advances time, for the budget's `now`, `setTimer` and
 * `clearTimer` seams: waits, deadlines and window expiries happen in order without real waiting.
 */
export interface TimerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  /** Runs every timer due within `ms`, in time order, letting promises settle after each. */
  advance(ms: number): Promise<void>;
}

export function fakeClock(): TimerClock {
  let time = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => time,
    setTimer: (fn: () => void, ms: number): unknown => {
      seq += 1;
      timers.set(seq, { at: time + ms, fn });
      return seq;
    },
    clearTimer: (handle: unknown) => {
      timers.delete(handle as number);
    },
    async advance(ms: number) {
      await flush(); // let what is due now see the current time
      const end = time + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        time = due[1].at;
        due[1].fn();
        await flush();
      }
      time = end;
      await flush();
    },
  };
}

/** Lets settled promises run their callbacks. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}
