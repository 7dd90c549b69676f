/**
 * What several processes of one program share about a site, so that they are as polite together as one
 * process is alone: a `Retry-After` pause seen by one pauses the site for all, and a circuit breaker opened
 * by one stops the others calling the site until its cool-down ends. The library only defines the shape;
 * a program that runs several processes implements it over something they all reach (the bot: Redis,
 * src/shared/redis-site-state.ts) and hands it to the registry (`shared`).
 *
 * Times are durations from now, never instants: each process measures time with its own monotonic clock,
 * and two hosts' wall clocks need not agree, so only "how long from now" means the same to all of them (a
 * Redis keeps it as a key's PX lifetime, on its own clock).
 *
 * Every method may reject (the shared backend is away): the breaker then goes on with what this process
 * knows by itself, and reads the shared state again on its next refresh.
 */
export interface SiteHold {
  /** Milliseconds left of the site's shared pause (`Retry-After`, the anti-bot floor); 0 when none. */
  readonly pausedMs: number;
  /** Milliseconds left of the cool-down of a breaker some process opened; 0 when none. */
  readonly openMs: number;
}

export interface SharedSiteState {
  /** Pauses `site` for every process for `ms` from now (a longer pause already in force is kept). */
  pause(site: string, ms: number): Promise<void>;
  /** Marks `site`'s breaker open for every process for `ms` from now (a longer one is kept). */
  open(site: string, ms: number): Promise<void>;
  /** What is in force for `site` now. */
  read(site: string): Promise<SiteHold>;
}
