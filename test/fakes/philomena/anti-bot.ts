/**
 * The local board's anti-bot layer, as the real one behaves (docs/board-behaviour.md, "Limits and
 * politeness", from Philomena's openapi.yaml): after its 501 challenge page (the `anti-bot` fault) the
 * caller must send nothing for 5 s; a request within them starts a block of 15 minutes during which every
 * request is answered 500 with an empty body, and every request during the block restarts the 15 minutes.
 *
 * The block is per IP, so it covers every path of the site (the API and pages); the files under `/img/`,
 * `/samples/` and `/media/` stand for the CDN, another host, and are left alone.
 *
 * Tests that scale the client's anti-bot wait down scale the layer's timings down with it (`configure`),
 * and move its clock forward (`advance`) instead of waiting out a block.
 */

export interface AntiBotTimings {
  /** After a 501, a request sooner than this starts the block. The real board: 5 s. */
  readonly graceMs: number;
  /** How long the block lasts after the last request that reached it. The real board: 15 min. */
  readonly blockMs: number;
}

export const REAL_ANTI_BOT_TIMINGS: AntiBotTimings = { graceMs: 5_000, blockMs: 15 * 60_000 };

export interface AntiBotLayer {
  /** Changes the timings (the rest of the state is kept). */
  configure(timings: Partial<AntiBotTimings>): void;
  /** Moves the layer's clock forward by `ms`, instead of waiting. */
  advance(ms: number): void;
  /** Milliseconds left of the block (0: not blocked). */
  blockedMs(): number;
  /** How many requests the block answered (each restarted it). */
  blockedRequests(): number;
  /** Back to the start: no challenge, no block, the real timings, the clock unmoved. */
  reset(): void;
}

/** The layer as the server drives it: each arriving request, and each 501 it answered. */
export interface AntiBotGate extends AntiBotLayer {
  /** A request arrived on `path`: true when the block answers it (an empty 500). */
  arrive(path: string): boolean;
  /** The server answered a 501 challenge just now. */
  challenged(): void;
}

/** The CDN's paths: another host in reality, so not under the site's block. */
const CDN_PATHS = /^\/(?:img|samples|media)\//;

export function createAntiBotLayer(now: () => number = Date.now): AntiBotGate {
  let timings = REAL_ANTI_BOT_TIMINGS;
  let offset = 0;
  /** Until when a request starts the block (the 5 s after a 501). */
  let graceUntil = -Infinity;
  let blockedUntil = -Infinity;
  let blocked = 0;
  const clock = (): number => now() + offset;
  return {
    configure(next) {
      timings = { ...timings, ...next };
    },
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
      offset += ms;
    },
    blockedMs: () => Math.max(0, blockedUntil - clock()),
    blockedRequests: () => blocked,
    reset() {
      timings = REAL_ANTI_BOT_TIMINGS;
      offset = 0;
      graceUntil = -Infinity;
      blockedUntil = -Infinity;
      blocked = 0;
    },
    arrive(path) {
      if (CDN_PATHS.test(path)) return false;
      const at = clock();
      if (at < blockedUntil || at < graceUntil) {
        // Within the block, or too soon after the challenge: blocked, and the 15 minutes start again.
        blockedUntil = at + timings.blockMs;
        graceUntil = -Infinity;
        blocked += 1;
        return true;
      }
      return false;
    },
    challenged() {
      graceUntil = clock() + timings.graceMs;
    },
  };
}
