/**
 * The channel an interaction came from, where discord.js has none. A user-installed command used in a
 * server the bot is not in (or a group DM) carries a partial `channel` (type, `nsfw`, `flags`, a thread's
 * `parent_id`), but discord.js builds no channel object for a server it does not know, so
 * `interaction.channel` is null there. The runtime keeps what the raw INTERACTION_CREATE said, per
 * interaction, for the rating rule and spoiler channels: a thread is judged by its parent only when the
 * bot knows the parent (otherwise it is not age-restricted and is a spoiler channel's: fail closed).
 */
import { Events, type Client, type Interaction } from 'discord.js';
import type { ChannelFacts } from './channel-poster.js';

/** Interactions remembered per client (an interaction is answered within 15 minutes; most within 3 s). */
const KEEP = 5_000;

const seenBy = new WeakMap<Client, Map<string, ChannelFacts>>();

interface RawChannel {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly nsfw?: unknown;
  readonly flags?: unknown;
  readonly parent_id?: unknown;
}

/** A channel's flags (IS_SPOILER_CHANNEL ...): the raw number, or discord.js's bit field of it; else 0. */
function flagsOf(flags: unknown): number {
  if (typeof flags === 'number' && Number.isSafeInteger(flags)) return flags;
  if (typeof flags === 'object' && flags !== null && 'bitfield' in flags) {
    const bits: unknown = flags.bitfield;
    if (typeof bits === 'number') return bits;
  }
  return 0;
}

/** Starts remembering the channels of `client`'s interactions (bot.ts, for every client it makes). */
export function rememberInteractionChannels(client: Client): void {
  const seen = new Map<string, ChannelFacts>();
  seenBy.set(client, seen);
  client.on(Events.Raw, (packet: { readonly t?: unknown; readonly d?: unknown }) => {
    if (packet.t !== 'INTERACTION_CREATE' || typeof packet.d !== 'object' || packet.d === null) return;
    const { id, channel } = packet.d as { readonly id?: unknown; readonly channel?: RawChannel };
    if (typeof id !== 'string' || channel === undefined || typeof channel.type !== 'number') return;
    const parentId = typeof channel.parent_id === 'string' ? channel.parent_id : undefined;
    const parent = parentId === undefined ? undefined : client.channels.cache.get(parentId);
    seen.set(id, {
      id: typeof channel.id === 'string' ? channel.id : '',
      type: channel.type,
      nsfw: channel.nsfw === true,
      flags: flagsOf(channel.flags),
      parent:
        parent === undefined
          ? null
          : {
              type: parent.type,
              nsfw: 'nsfw' in parent && parent.nsfw === true,
              flags: flagsOf('flags' in parent ? parent.flags : undefined),
            },
    });
    if (seen.size > KEEP) {
      const oldest = seen.keys().next();
      if (!oldest.done) seen.delete(oldest.value);
    }
  });
}

/** `interaction.channel`, or the channel its payload carried when discord.js made none; null when neither. */
export function interactionChannel(
  interaction: Interaction,
): NonNullable<Interaction['channel']> | ChannelFacts | null {
  return interaction.channel ?? seenBy.get(interaction.client)?.get(interaction.id) ?? null;
}
