/**
 * The bot's Discord REST with interaction routes off the global limit, as Discord applies it
 * (docs/discord-platform.md, "Rate limits and invalid requests"): the interaction callback and the
 * interaction webhook (edits of the original answer, follow-ups, their edits and deletes) do not count
 * toward the bot's 50 requests a second; everything else does.
 *
 * @discordjs/rest keeps one global counter per `REST` (`globalRequestsPerSecond`, default 50) that every
 * per-route queue (`SequentialHandler`) takes from before it sends, the interaction webhook's included (the
 * callback alone goes through a `BurstHandler`, which skips it). So at 100 interactions a second the edits
 * that carry the answers queued behind each other, cache hits included. This `REST` hands the interaction
 * routes to a second `REST` with no global cap (`globalRequestsPerSecond: Infinity`: the counter never runs
 * out) and keeps everything else on its own, so:
 *
 * - channel posts, unfurl replies and their preview suppression, feeds, registration stay within 50/s;
 * - every per-route bucket is still learnt and honoured, each by the `REST` that sends on that route;
 * - every 429 Discord sends is still waited out and retried, by the `REST` that got it: a global one on a
 *   bound route stops every bound route until `Retry-After` (@discordjs/rest sets its global reset from
 *   it), a global one on an interaction route stops the interaction routes alike, a per-route one its
 *   bucket; neither side's global wait stops the other, as Discord's limits do not.
 *
 * Which routes: src/discord/interaction-routes.ts (the REST proxy reads the same). A webhook route counts
 * as an interaction route only under the bot's own application id (`client.application`, known from READY,
 * before any interaction can come); a webhook made in a channel stays bound.
 *
 * It is discord.js's own `REST` class (its CommonJS build, which discord.js loads), so the errors it
 * throws are the `DiscordAPIError` discord.js and the runtime test for with `instanceof`.
 */
import {
  REST,
  RESTEvents,
  type Client,
  type InternalRequest,
  type RESTOptions,
  type ResponseLike,
} from 'discord.js';
import { isUnboundRoute } from './interaction-routes.js';

/** Whether interaction routes are held to the global limit as well. */
export type InteractionRoutesLimit = 'exempt' | 'global';

class InteractionAwareRest extends REST {
  readonly #interactions: REST;
  readonly #applicationId: () => string | undefined;

  /** `applicationId`: the bot's application, once known (undefined: no webhook route is exempt). */
  constructor(options: Partial<RESTOptions>, applicationId: () => string | undefined) {
    super(options);
    this.#applicationId = applicationId;
    // Infinity: @discordjs/rest's counter (remaining = max(1, this), one taken per request) never reaches
    // 0 on its own; a global 429 still sets it to 0 until Retry-After.
    this.#interactions = new REST({ ...options, globalRequestsPerSecond: Number.POSITIVE_INFINITY });
    // Its events repeated on this one (the `client.rest` discord.js exposes), so whoever watches rate
    // limits (observed.ts) sees both. Not `Response`: @discordjs/rest clones every answer for it while
    // anyone listens, and nobody here does.
    const inner = this.#interactions;
    inner.on(RESTEvents.RateLimited, (info) => this.emit(RESTEvents.RateLimited, info));
    inner.on(RESTEvents.InvalidRequestWarning, (info) => this.emit(RESTEvents.InvalidRequestWarning, info));
    inner.on(RESTEvents.Debug, (text) => this.emit(RESTEvents.Debug, text));
    inner.on(RESTEvents.HashSweep, (swept) => this.emit(RESTEvents.HashSweep, swept));
    inner.on(RESTEvents.HandlerSweep, (swept) => this.emit(RESTEvents.HandlerSweep, swept));
  }

  /** Every request of discord.js (`get`, `patch`, ... and `request`) comes through here. */
  override queueRequest(request: InternalRequest): Promise<ResponseLike> {
    return isExempt(request, this.#applicationId())
      ? this.#interactions.queueRequest(request)
      : super.queueRequest(request);
  }

  /** discord.js also passes null here when the client is destroyed (the token forgotten). */
  override setToken(token: string): this {
    super.setToken(token);
    this.#interactions.setToken(token);
    return this;
  }

  override setAgent(agent: Parameters<REST['setAgent']>[0]): this {
    super.setAgent(agent);
    this.#interactions.setAgent(agent);
    return this;
  }

  override clearHashSweeper(): void {
    super.clearHashSweeper();
    this.#interactions.clearHashSweeper();
  }

  override clearHandlerSweeper(): void {
    super.clearHandlerSweeper();
    this.#interactions.clearHandlerSweeper();
  }
}

function isExempt(request: InternalRequest, applicationId: string | undefined): boolean {
  return isUnboundRoute(request.method, request.fullRoute, applicationId);
}

/** The bot's REST: interaction routes (under `applicationId`, once known) off the global limit. */
export function createInteractionRest(
  options: Partial<RESTOptions>,
  applicationId: () => string | undefined,
): REST {
  return new InteractionAwareRest(options, applicationId);
}

/**
 * Puts the REST of {@link createInteractionRest} in place of the `REST` the client made (before login: the gateway
 * takes `client.rest` when it connects), built from the same options discord.js settled on. With
 * `'global'` the client keeps @discordjs/rest's own behaviour (for comparison in the bench).
 */
export function exemptInteractionRoutes(client: Client, limit: InteractionRoutesLimit = 'exempt'): void {
  if (limit === 'global') return;
  const made = client.rest;
  // The unused one's sweep timers would otherwise keep running (unref'd, but for nothing).
  made.clearHashSweeper();
  made.clearHandlerSweeper();
  client.rest = createInteractionRest(client.options.rest ?? {}, () => client.application?.id);
}
