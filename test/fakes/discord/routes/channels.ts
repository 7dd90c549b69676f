/**
 * Channels by id (the seeded guild's and the DM) and the typing indicator.
 */
import { channelPayload, dmChannelPayload } from '../payloads.js';
import { DiscordError, type RestContext } from '../rest-context.js';

export function registerChannelRoutes(rest: RestContext): void {
  const { state, world, add, requireChannel } = rest;

  add('GET', '/channels/:channel', (_req, p) => {
    const id = p['channel'] ?? '';
    if (id === world.dmChannelId) return { status: 200, body: dmChannelPayload(world) };
    const channel = world.channels.get(id);
    if (channel === undefined) throw new DiscordError(404, 10003, 'Unknown Channel', 'unknown-resource');
    return { status: 200, body: channelPayload(world, channel, state.now) };
  });
  add('POST', '/channels/:channel/typing', (_req, p) => {
    requireChannel(p['channel'] ?? '');
    return { status: 204 };
  });
}
