/**
 * Whom the REST proxy relays for, and why. Anyone who can reach the proxy could otherwise send requests
 * through it under their own tokens, sharing the bots' rate-limit state with them and spending the host's IP
 * reputation (Discord bans an address after too many invalid requests). So the proxy relays only:
 *
 * - requests whose Authorization is `Bot <token>` for one of its configured tokens, to any route;
 * - requests without an Authorization header on the interaction routes alone, which Discord authorises by
 *   the token in the path: an interaction's callback (`POST /interactions/{id}/{token}/callback`) and the
 *   interaction webhook (`POST /webhooks/{application id}/{token}`, and `GET`/`PATCH`/`DELETE` of
 *   `/webhooks/{application id}/{token}/messages/{@original | message id}`), where `{application id}` is
 *   the application of one of the configured bots. A webhook a bot created in a channel has its own id
 *   (not the application's), so its token-in-path routes need the bot's Authorization here.
 *
 * Everything else is refused with 401 by the proxy itself and never reaches Discord.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { interactionRoute, type InteractionRoute } from '../discord/interaction-routes.js';

/**
 * Which route a request without Authorization may take: the callback (any interaction: its token is its
 * authority), or an interaction webhook route, whose application id must then be one of the bots'. The
 * routes are the bot's own definition of interaction routes (src/discord/interaction-routes.ts), which the
 * proxy also keeps off the global limit (proxy.ts).
 */
export function tokenInPathRoute(method: string, route: string): InteractionRoute | undefined {
  return interactionRoute(method, route);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether an Authorization header is `Bot <one of tokens>`. Compared as SHA-256 digests with
 * timingSafeEqual, against every token without stopping at a match, so neither the time taken nor its
 * length says how much of a token a guess got right.
 */
export function createTokenCheck(tokens: readonly string[]): (authorization: string) => boolean {
  const expected = tokens.map((token) => digest(`Bot ${token}`));
  return (authorization) => {
    const given = digest(authorization);
    let match = false;
    for (const candidate of expected) match = timingSafeEqual(given, candidate) || match;
    return match;
  };
}

/** What looking up a token's application answered. */
export type Lookup =
  | { readonly ok: true; readonly applicationId: string }
  /** `refused`: Discord said the token is not valid (401); it is not asked again. */
  | { readonly ok: false; readonly refused: boolean };

export interface ApplicationIdsOptions {
  readonly tokens: readonly string[];
  /** Application ids given in the configuration (DISCORD_APPLICATION_ID); known from the start. */
  readonly known?: readonly string[];
  /** Asks Discord for the application of `token` (GET /applications/@me). */
  readonly lookUp: (token: string) => Promise<Lookup>;
  /** A token whose look-up failed is not asked again before this; default 30 s. */
  readonly retryMs?: number;
  readonly now?: () => number;
  /** Told once for each token Discord refused (by its place in the list: never the token itself). */
  readonly onRefused?: (index: number) => void;
}

export interface ApplicationIds {
  /** Whether `id` is the application of one of the bots, looking up the tokens not yet known if need be. */
  has(id: string): Promise<boolean>;
  /** Looks up every token not yet known (the proxy does it once at start); never rejects. */
  learn(): Promise<void>;
}

/**
 * The application ids of the configured bots. A bot token begins with the base64 of the bot's user id,
 * which is not its application's id for older applications (Discord says not to rely on the token's
 * form), so each token's application is asked of Discord. A look-up happens at start and again, at most
 * once per `retryMs` for a token, only when a request names an application id not known yet: someone
 * sending made-up ids costs Discord no more than that.
 */
export function createApplicationIds(options: ApplicationIdsOptions): ApplicationIds {
  const retryMs = options.retryMs ?? 30_000;
  const now = options.now ?? Date.now;
  const ids = new Set(options.known ?? []);
  interface Pending {
    readonly token: string;
    readonly index: number;
    /** When it may be asked again (after a failure). */
    notBefore: number;
    inFlight?: Promise<void> | undefined;
  }
  let pending: Pending[] = options.tokens.map((token, index) => ({ token, index, notBefore: 0 }));

  function ask(entry: Pending): Promise<void> {
    entry.inFlight ??= options
      .lookUp(entry.token)
      .catch((): Lookup => ({ ok: false, refused: false }))
      .then((answer) => {
        entry.inFlight = undefined;
        if (answer.ok) ids.add(answer.applicationId);
        else if (answer.refused) options.onRefused?.(entry.index);
        else {
          entry.notBefore = now() + retryMs;
          return;
        }
        pending = pending.filter((other) => other !== entry);
      });
    return entry.inFlight;
  }

  async function learn(): Promise<void> {
    const due = pending.filter((entry) => entry.inFlight !== undefined || entry.notBefore <= now());
    await Promise.all(due.map(ask));
  }

  return {
    async has(id) {
      if (ids.has(id)) return true;
      await learn();
      return ids.has(id);
    },
    learn,
  };
}
