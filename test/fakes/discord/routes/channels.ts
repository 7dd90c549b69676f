/**
 * Channels by id (every server's, and the DM) and the typing indicator. A deleted channel is 404 10003;
 * one the bot may not view (a View Channel overwrite, a server it is not in, a DM between users) 403
 * 50001.
 */
import { channelPayload, dmChannelPayload } from '../payloads.js';
import type { RestContext } from '../rest-context.js';

export function registerChannelRoutes(rest: RestContext): void {
  const { state, world, add, channelOf, requireChannel, requireAccess } = rest;

  add('GET', '/channels/:channel', (_req, p) => {
    const id = p['channel'] ?? '';
    if (id === world.dmChannelId) return { status: 200, body: dmChannelPayload(world) };
    requireChannel(id);
    requireAccess(id);
    const found = channelOf(id);
    if (found === undefined) throw new Error(`fake Discord: channel ${id} passed requireAccess unknown`);
    return { status: 200, body: channelPayload(found.world, found.channel, state.now) };
  });
  add('POST', '/channels/:channel/typing', (_req, p) => {
    requireChannel(p['channel'] ?? '');
    requireAccess(p['channel'] ?? '');
    return { status: 204 };
  });
}
