/**
 * The seeded guilds (every server), their channels (threads are not listed, as in Discord) and members.
 * A server the bot is not in: GET /guilds/:id answers 404 10004 Unknown Guild (as Discord has since 2023,
 * so that a bot cannot probe which servers exist), its channels and members 403 50001 Missing Access.
 */
import { channelPayload, guildPayload, isThread, memberPayload, type World } from '../payloads.js';
import { DiscordError, type RestContext } from '../rest-context.js';

export function registerGuildRoutes(rest: RestContext): void {
  const { state, add, worldOfGuild, foreignWorldOfGuild } = rest;

  const requireGuild = (id: string | undefined, { probe = false }: { probe?: boolean } = {}): World => {
    if (!probe && foreignWorldOfGuild(id) !== undefined) {
      throw new DiscordError(403, 50001, 'Missing Access', 'missing-permissions');
    }
    const world = worldOfGuild(id);
    if (world === undefined) throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
    return world;
  };
  add('GET', '/guilds/:guild', (_req, p) => {
    const world = requireGuild(p['guild'], { probe: true });
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
