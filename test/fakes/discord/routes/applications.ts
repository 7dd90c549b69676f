/**
 * The bot's application (`/applications/@me`, and the OAuth2 alias discord.js still calls).
 */
import { userOf, userPayload } from '../payloads.js';
import type { Reply, RestContext } from '../rest-context.js';

export function registerApplicationRoutes(rest: RestContext): void {
  const { state, world, add } = rest;

  const application = (): Reply => ({
    status: 200,
    body: {
      id: state.applicationId,
      name: world.bot.username,
      icon: null,
      description: 'Fake application',
      summary: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: '0'.repeat(64),
      flags: 1 << 19,
      owner: userPayload(userOf(world, world.ownerId)),
      team: null,
      bot: userPayload(world.bot),
      tags: [],
      install_params: undefined,
      integration_types_config: { '0': {} },
      approximate_guild_count: 1,
      interactions_endpoint_url: null,
      redirect_uris: [],
    },
  });
  add('GET', '/applications/@me', application);
  add('GET', '/oauth2/applications/@me', application);
}
