/**
 * The seeded guilds (every server), their channels (threads are not listed, as in Discord) and members.
 */
import { channelPayload, guildPayload, isThread, memberPayload, type World } from '../payloads.js';
import { DiscordError, type RestContext } from '../rest-context.js';

export function registerGuildRoutes(rest: RestContext): void {
  const { state, add, worldOfGuild } = rest;

  const requireGuild = (id: string | undefined): World => {
    const world = worldOfGuild(id);
    if (world === undefined) throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
    return world;
  };
  add('GET', '/guilds/:guild', (_req, p) => {
    const world = requireGuild(p['guild']);
    return { status: 200, body: guildPayload(world) };
  });
  add('GET', '/guilds/:guild/channels', (_req, p) => {
    const world = requireGuild(p['guild']);
    const list = [...world.channels.values()].filter((c) => !isThread(c));
    return { status: 200, body: list.map((c) => channelPayload(world, c, state.now)) };
  });
  add('GET', '/guilds/:guild/members/:user', (_req, p) => {
    const world = requireGuild(p['guild']);
    const userId = p['user'] ?? '';
    if (!world.memberRoles.has(userId))
      throw new DiscordError(404, 10007, 'Unknown Member', 'unknown-resource');
    return { status: 200, body: memberPayload(world, userId) };
  });
}
