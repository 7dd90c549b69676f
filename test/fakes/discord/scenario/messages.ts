/**
 * Messages users send where the bot is (`sendMessage`: MESSAGE_CREATE to the shard of the channel's
 * server, blanked without the Message Content intent as Discord does, a forward's snapshots too) and
 * reading a channel back (`channelMessages`, `allMessages`).
 */
import { ChannelType } from 'discord.js';
import { INTENT_DIRECT_MESSAGES, INTENT_GUILD_MESSAGES, INTENT_MESSAGE_CONTENT } from '../gateway.js';
import { memberPayload, messagePayload } from '../payloads.js';
import type { RecordedMessage } from '../types.js';
import { appInstalledAt, type Scenario } from './context.js';
import type { UserMessages } from './forwards.js';
import type { ChannelTarget, MessageHandle, SendMessageOptions } from './types.js';

export interface ChannelMessages {
  sendMessage(opts: SendMessageOptions): Promise<MessageHandle>;
  channelMessages(channel: ChannelTarget): RecordedMessage[];
  allMessages(channel: ChannelTarget): RecordedMessage[];
}

export function createChannelMessages(scenario: Scenario, userMessages: UserMessages): ChannelMessages {
  const { state, world, channelIdOf, placeOf, worldOf, dispatchToShard } = scenario;
  const { storeUserMessage } = userMessages;

  return {
    async sendMessage(opts) {
      const channelId = channelIdOf(opts.channel);
      const place = placeOf(channelId);
      if (!appInstalledAt(place)) {
        throw new Error(
          `fake Discord: the bot is not in channel ${channelId} (a server it is not in, or a DM between users): Discord sends it no MESSAGE_CREATE`,
        );
      }
      const w = worldOf(channelId);
      const authorId = opts.authorId ?? w.dmUserId;
      if (opts.bot === true && !w.users.has(authorId)) {
        w.users.set(authorId, { id: authorId, username: `bot_${authorId.slice(-4)}`, bot: true });
      }
      const message = storeUserMessage(channelId, {
        content: opts.content,
        authorId,
        embeds: opts.embeds,
        attachments: opts.attachments,
        replyTo: opts.replyTo,
        forwardOf: opts.forwardOf,
      });
      const inGuild = channelId !== world.dmChannelId;
      const full = messagePayload(w, message);
      if (opts.bot === true) full['author'] = { ...(full['author'] as object), bot: true };
      dispatchToShard('MESSAGE_CREATE', inGuild ? w.guildId : undefined, (intents) => {
        if ((intents & (inGuild ? INTENT_GUILD_MESSAGES : INTENT_DIRECT_MESSAGES)) === 0) return null;
        // Discord names the channel's type in every MESSAGE_CREATE (Message Create Extra Fields): a client
        // that has never seen a DM channel builds it from this and the author, as discord.js does.
        const d: Record<string, unknown> = {
          ...full,
          channel_type: inGuild ? w.channels.get(channelId)?.type : ChannelType.DM,
        };
        if (inGuild) {
          d['guild_id'] = w.guildId;
          const member = memberPayload(w, authorId);
          delete member['user'];
          d['member'] = member;
        }
        const mentionsBot = message.content.includes(`<@${world.bot.id}>`);
        if ((intents & INTENT_MESSAGE_CONTENT) === 0 && inGuild && !mentionsBot) {
          // Without the Message Content intent Discord blanks these fields (a forward's snapshots too: they
          // hold the same user content).
          Object.assign(d, { content: '', embeds: [], attachments: [], components: [], poll: undefined });
          if (Array.isArray(d['message_snapshots'])) {
            d['message_snapshots'] = (d['message_snapshots'] as { message: Record<string, unknown> }[]).map(
              (snapshot) => ({
                message: { ...snapshot.message, content: '', embeds: [], attachments: [], components: [] },
              }),
            );
          }
        }
        return d;
      });
      return {
        id: message.id,
        channelId,
        message,
        replies: () =>
          state
            .messagesIn(channelId)
            .filter((m) => m.authorId === w.bot.id && m.messageReference?.message_id === message.id),
      };
    },
    channelMessages(channel) {
      return state
        .messagesIn(channelIdOf(channel, { deleted: true }))
        .filter((m) => m.authorId === world.bot.id || m.edits > 0);
    },
    allMessages(channel) {
      return state.messagesIn(channelIdOf(channel, { deleted: true }));
    },
  };
}
