/**
 * Which Discord routes are interaction routes: the ones Discord authorises by the interaction's token in
 * the path and does not hold to the bot's global limit of 50 requests a second (docs/discord-platform.md,
 * "Rate limits and invalid requests"; every per-route bucket still applies to them):
 *
 * - the interaction callback, `POST /interactions/{interaction id}/{token}/callback`;
 * - the interaction webhook, `POST /webhooks/{application id}/{token}` (a follow-up) and `GET`/`PATCH`/
 *   `DELETE /webhooks/{application id}/{token}/messages/{@original | message id}`.
 *
 * A webhook a bot made in a channel has the same route shapes but its own id, never the application's:
 * only the caller knows which application ids are its own, so a webhook route is named here with its id
 * and the caller decides. The one writer (interaction-rest.ts) and the REST proxy (src/rest-proxy/) both
 * read routes through this file, so they cannot disagree on what is exempt.
 */

/** The callback, route being the path without `/api/vN` and without the query. */
const CALLBACK = /^\/interactions\/\d{1,20}\/[A-Za-z0-9._-]{1,512}\/callback$/;
const FOLLOW_UP = /^\/webhooks\/(\d{1,20})\/[A-Za-z0-9._-]{1,512}$/;
// discord.js sends `@original` as it is; a proxied request may carry it percent-encoded (`%40original`).
const WEBHOOK_MESSAGE =
  /^\/webhooks\/(\d{1,20})\/[A-Za-z0-9._-]{1,512}\/messages\/(?:@original|%40original|\d{1,20})$/;
const MESSAGE_METHODS: ReadonlySet<string> = new Set(['GET', 'PATCH', 'DELETE']);

export type InteractionRoute =
  { readonly kind: 'callback' } | { readonly kind: 'webhook'; readonly applicationId: string };

/** The interaction route `method route` takes, if it is one (a webhook's id still to be checked). */
export function interactionRoute(method: string, route: string): InteractionRoute | undefined {
  const upper = method.toUpperCase();
  if (upper === 'POST' && CALLBACK.test(route)) return { kind: 'callback' };
  const followUp = upper === 'POST' ? FOLLOW_UP.exec(route) : null;
  const message = MESSAGE_METHODS.has(upper) ? WEBHOOK_MESSAGE.exec(route) : null;
  const applicationId = (followUp ?? message)?.[1];
  return applicationId === undefined ? undefined : { kind: 'webhook', applicationId };
}

/**
 * Whether `method route` is outside the global limit: the callback, or the interaction webhook of
 * `applicationId` (unknown yet: no webhook route is, the safe side).
 */
export function isUnboundRoute(method: string, route: string, applicationId: string | undefined): boolean {
  const found = interactionRoute(method, route);
  if (found === undefined) return false;
  return found.kind === 'callback' || (applicationId !== undefined && found.applicationId === applicationId);
}
