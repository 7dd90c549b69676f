/**
 * The bot's own user and users by id.
 */
import { userPayload } from '../payloads.js';
import { DiscordError, type RestContext } from '../rest-context.js';

export function registerUserRoutes(rest: RestContext): void {
  const { world, add } = rest;

  add('GET', '/users/@me', () => ({
    status: 200,
    body: { ...userPayload(world.bot), verified: true, mfa_enabled: true, locale: 'en-US', email: null },
  }));
  add('GET', '/users/:user', (_req, p) => {
    const user = world.users.get(p['user'] ?? '');
    if (user === undefined) throw new DiscordError(404, 10013, 'Unknown User', 'unknown-resource');
    return { status: 200, body: userPayload(user) };
  });
}
