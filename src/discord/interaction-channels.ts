/**
 * The channel an interaction came from, where discord.js has none. A user-installed command used in a
 * server the bot is not in (or a group DM) carries a partial `channel` (type, `nsfw`, `flags`, a thread's
 * `parent_id`), but discord.js builds no channel object for a server it does not know, so
 * `interaction.channel` is null there, and discord.js keeps no channel of the bot's own servers either
 * (server-facts.ts keeps their facts). The runtime reads what the raw INTERACTION_CREATE said (discord.js
 * emits the raw packet before the interaction) and hands it to the features' context factory with the
 * interaction, for the rating rule and spoiler channels: a thread is judged by its parent only when the
 * bot knows the parent (otherwise it is not age-restricted and is a spoiler channel's: fail closed).
 */
import { Events, type Client } from 'discord.js';
import { z } from 'zod';
import type { ChannelFacts } from './contract.js';
import { THREAD_TYPES } from './packed-server.js';
import type { ServerDirectory } from './server-facts.js';

/**
 * Facts kept for interactions discord.js never turned into an event (a kind it does not know): the oldest
 * go first. An interaction's facts are taken as soon as its event arrives, so this is rarely reached.
 */
const KEEP = 5_000;

/** A channel's raw flags (IS_SPOILER_CHANNEL ...); anything but a whole number reads as none. */
const rawFlags = z.number().int().catch(0);

/** What the runtime reads of a raw INTERACTION_CREATE; a packet without a typed channel is ignored. */
const rawInteraction = z.object({
  d: z.object({
    id: z.string(),
    guild_id: z.string().optional().catch(undefined),
    channel: z.object({
      id: z.string().catch(''),
      type: z.number(),
      nsfw: z
        .unknown()
        .optional()
        .transform((nsfw) => nsfw === true),
      flags: rawFlags,
      parent_id: z.string().optional().catch(undefined),
    }),
  }),
});

/** Whether a raw packet is an interaction, looked at before parsing it: most packets are not. */
function isInteractionPacket(packet: unknown): boolean {
  return typeof packet === 'object' && packet !== null && 't' in packet && packet.t === 'INTERACTION_CREATE';
}

export interface InteractionChannels {
  /** What the raw payload of interaction `id` said of its channel (once: it is forgotten as it is taken). */
  take(id: string): ChannelFacts | undefined;
}

/**
 * Reads the channels of `client`'s interactions from their raw packets (bot.ts, for every client it makes);
 * a thread's parent from what the bot knows of its server.
 */
export function createInteractionChannels(client: Client, servers: ServerDirectory): InteractionChannels {
  const seen = new Map<string, ChannelFacts>();
  client.on(Events.Raw, (packet: unknown) => {
    if (!isInteractionPacket(packet)) return;
    const parsed = rawInteraction.safeParse(packet);
    if (!parsed.success) return;
    const { id, channel, guild_id: guildId } = parsed.data.d;
    // Only a thread is judged by its parent (a channel's parent_id is its category: not looked up).
    const parent =
      channel.parent_id === undefined || guildId === undefined || !THREAD_TYPES.has(channel.type)
        ? undefined
        : servers.server(guildId)?.channel(channel.parent_id);
    seen.set(id, {
      id: channel.id,
      type: channel.type,
      nsfw: channel.nsfw,
      flags: channel.flags,
      parentId: channel.parent_id ?? null,
      parent: parent === undefined ? null : { type: parent.type, nsfw: parent.nsfw, flags: parent.flags },
    });
    if (seen.size > KEEP) {
      const oldest = seen.keys().next();
      if (!oldest.done) seen.delete(oldest.value);
    }
  });
  return {
    take(id) {
      const facts = seen.get(id);
      seen.delete(id);
      return facts;
    },
  };
}
