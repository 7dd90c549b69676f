/**
 * The seeded guild, its channels (threads are not listed, as in Discord) and its members.
 */
import { channelPayload, guildPayload, isThread, memberPayload } from '../payloads.js';
import { DiscordError, type RestContext } from '../rest-context.js';

export function registerGuildRoutes(rest: RestContext): void {
  const { state, world, add } = rest;

  const requireGuild = (id: string | undefined): void => {
    if (id !== world.guildId) throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
  };
  add('GET', '/guilds/:guild', (_req, p) => {
    requireGuild(p['guild']);
    return { status: 200, body: guildPayload(world) };
  });
  add('GET', '/guilds/:guild/channels', (_req, p) => {
    requireGuild(p['guild']);
    const list = [...world.channels.values()].filter((c) => !isThread(c));
    return { status: 200, body: list.map((c) => channelPayload(world, c, state.now)) };
  });
  add('GET', '/guilds/:guild/members/:user', (_req, p) => {
    requireGuild(p['guild']);
    const userId = p['user'] ?? '';
    if (!world.memberRoles.has(userId))
      throw new DiscordError(404, 10007, 'Unknown Member', 'unknown-resource');
    return { status: 200, body: memberPayload(world, userId) };
  });
}
