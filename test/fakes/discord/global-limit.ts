/**
 * The fake Discord's global rate limit, where Discord applies it (docs/discord-platform.md, "Rate limits
 * and invalid requests"): at most 50 requests in each one-second window per bot token, on every route but
 * the interaction routes. The interaction callback and the interaction webhook of the app
 * (`/webhooks/<application id>/<interaction token>...`) never count and are never refused here, whatever
 * Authorization they carry; their own per-route buckets (rest.ts) still apply.
 *
 * Past the 50, a request is answered as Discord answers it: 429 with `X-RateLimit-Global: true`,
 * `X-RateLimit-Scope: global`, `Retry-After` (whole seconds, rounded up, as Discord's header) and the body
 * `{ message, retry_after, global: true, code: 0 }` (the OpenAPI schema's RatelimitedResponse; retry_after
 * in seconds with milliseconds). A refused request does not take a place in the window. Each refusal is a
 * violation of kind `global-limit`: a bot that keeps to the limit is never refused.
 */
import type { Params, Reply } from './rest-context.js';
import type { FakeState } from './state.js';

/** Discord's global limit: requests per window, per bot token. */
const GLOBAL_LIMIT = 50;
const GLOBAL_WINDOW_MS = 1000;

const CALLBACK_TEMPLATE = '/interactions/:interaction/:token/callback';

export interface GlobalLimit {
  /** The 429 for a request past the limit on `template`, or undefined when it may go on. */
  check(
    method: string,
    template: string,
    params: Params,
    authorization: string | undefined,
  ): Reply | undefined;
}

/** Whether the route is one Discord keeps off the global limit (the app's own interaction routes). */
function isInteractionTemplate(template: string, params: Params, applicationId: string): boolean {
  if (template === CALLBACK_TEMPLATE) return true;
  return template.startsWith('/webhooks/:app/:token') && params['app'] === applicationId;
}

export function createGlobalLimit(state: FakeState): GlobalLimit {
  /** Per Authorization (a bot's token; '' for requests without one): the current window. */
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    check(method, template, params, authorization) {
      if (isInteractionTemplate(template, params, state.applicationId)) return undefined;
      const key = authorization ?? '';
      const now = state.now();
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        window = { count: 0, resetAt: now + GLOBAL_WINDOW_MS };
        windows.set(key, window);
      }
      if (window.count < GLOBAL_LIMIT) {
        window.count += 1;
        return undefined;
      }
      const retryAfter = Math.max(0.001, (window.resetAt - now) / 1000);
      state.violation({
        kind: 'global-limit',
        message: `${method} ${template} past the global limit of ${GLOBAL_LIMIT} requests a second`,
        method,
        route: template,
        code: 0,
      });
      return {
        status: 429,
        body: {
          message: 'You are being rate limited.',
          retry_after: Number(retryAfter.toFixed(3)),
          global: true,
          code: 0,
        },
        headers: {
          'Retry-After': String(Math.ceil(retryAfter)),
          'X-RateLimit-Global': 'true',
          'X-RateLimit-Scope': 'global',
        },
      };
    },
  };
}
