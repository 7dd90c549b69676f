/**
 * Who polls a feed group this interval (commands/feed/poller.ts). A lease is taken for a span; while it lives nobody else takes it,
 * so each group is searched once per interval however many processes run, and a process that dies holds
 * its groups for one interval at most. The bot's processes share them in Redis
 * (src/redis/redis-leases.ts); one process alone keeps them here.
 */
export interface PollLeases {
  /** Takes `name` for `ms` from now: true when this caller got it, false when someone holds it. */
  take(name: string, ms: number): Promise<boolean>;
}

/** Leases of one process, in memory (bounded by the groups polled within one lease span). */
export function createLocalLeases(now: () => number = () => performance.now()): PollLeases {
  const held = new Map<string, number>();
  return {
    take(name, ms) {
      const at = now();
      for (const [key, until] of held) if (until <= at) held.delete(key);
      if ((held.get(name) ?? 0) > at) return Promise.resolve(false);
      held.set(name, at + ms);
      return Promise.resolve(true);
    },
  };
}
