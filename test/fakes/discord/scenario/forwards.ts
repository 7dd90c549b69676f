/**
 * Messages users write, forwards among them (docs/discord-platform.md): a forward carries no content of
 * its own, flag HAS_SNAPSHOT, `message_reference` type 1 and the original in `message_snapshots`. The
 * original is an existing message, or one made from fields: stored in a channel the test names, or from a
 * server the bot cannot see (fresh ids, nothing stored).
 */
import { HAS_SNAPSHOT_FLAG, snapshotOf } from '../payloads.js';
import type { RecordedMessage } from '../types.js';
import type { Scenario } from './context.js';
import type { ForwardSource } from './types.js';

const EPHEMERAL_FLAG = 1 << 6;

/** What a user's message is made of (sendMessage, a message command's target, a forward's original). */
export interface UserMessageInput {
  content?: string | undefined;
  authorId?: string | undefined;
  embeds?: readonly Record<string, unknown>[] | undefined;
  attachments?: readonly Record<string, unknown>[] | undefined;
  replyTo?: string | undefined;
  forwardOf?: ForwardSource | undefined;
}

export interface UserMessages {
  /** Stores a user's message in a channel (a forward when `forwardOf`); throws what Discord would not send. */
  storeUserMessage(channelId: string, input: UserMessageInput): RecordedMessage;
}

export function createUserMessages(scenario: Scenario): UserMessages {
  const { state, world, now, snowflake, channelIdOf, guildIdOf, worldOf } = scenario;

  /**
   * The message_reference and snapshot of a forward of `source`: an existing message, or one made from the
   * fields (stored in `source.channel`, or from a server the bot cannot see: fresh ids, nothing stored).
   */
  function forwardFrom(source: ForwardSource): {
    reference: NonNullable<RecordedMessage['messageReference']>;
    snapshot: Record<string, unknown>;
  } {
    let original: RecordedMessage;
    let reference: NonNullable<RecordedMessage['messageReference']>;
    if (source.id !== undefined) {
      const found = state.messages.get(source.id);
      if (found === undefined || found.deleted) {
        throw new Error(`fake Discord: cannot forward unknown or deleted message ${source.id}`);
      }
      if ((found.flags & EPHEMERAL_FLAG) !== 0) {
        throw new Error(`fake Discord: ephemeral message ${source.id} cannot be forwarded`);
      }
      original = found;
    } else if (source.channel !== undefined) {
      original = storeUserMessage(channelIdOf(source.channel), {
        content: source.content,
        authorId: source.authorId,
        embeds: source.embeds,
        attachments: source.attachments,
      });
    } else {
      const channelId = snowflake();
      original = {
        id: snowflake(),
        channelId,
        authorId: source.authorId ?? world.ownerId,
        bot: false,
        content: source.content ?? '',
        embeds: [...(source.embeds ?? [])],
        components: [],
        allowedMentions: undefined,
        flags: 0,
        messageReference: undefined,
        attachments: (source.attachments ?? []).map((a) => ({ id: snowflake(), ...a })),
        interactionId: undefined,
        webhookId: undefined,
        createdAt: now() - 60_000,
        editedAt: undefined,
        edits: 0,
        deleted: false,
      };
      reference = { type: 1, message_id: original.id, channel_id: channelId, guild_id: snowflake() };
      return { reference, snapshot: snapshotOf(world, original) };
    }
    const guildId = guildIdOf(original.channelId);
    reference = {
      type: 1,
      message_id: original.id,
      channel_id: original.channelId,
      ...(guildId === undefined ? {} : { guild_id: guildId }),
    };
    return { reference, snapshot: snapshotOf(worldOf(original.channelId), original) };
  }

  function storeUserMessage(channelId: string, input: UserMessageInput): RecordedMessage {
    const forward = input.forwardOf === undefined ? undefined : forwardFrom(input.forwardOf);
    if (
      forward !== undefined &&
      ((input.content ?? '') !== '' ||
        (input.embeds ?? []).length > 0 ||
        (input.attachments ?? []).length > 0 ||
        input.replyTo !== undefined)
    ) {
      throw new Error(
        'fake Discord: a forward carries no content, embeds, attachments or reply of its own (Discord sends a comment as a separate message)',
      );
    }
    const guildId = guildIdOf(channelId);
    const message: RecordedMessage = {
      id: snowflake(),
      channelId,
      authorId: input.authorId ?? worldOf(channelId).dmUserId,
      bot: false,
      content: input.content ?? '',
      embeds: [...(input.embeds ?? [])],
      components: [],
      allowedMentions: undefined,
      flags: forward === undefined ? 0 : HAS_SNAPSHOT_FLAG,
      messageReference:
        forward !== undefined
          ? forward.reference
          : input.replyTo === undefined
            ? undefined
            : {
                message_id: input.replyTo,
                channel_id: channelId,
                ...(guildId === undefined ? {} : { guild_id: guildId }),
              },
      ...(forward === undefined ? {} : { messageSnapshots: [forward.snapshot] }),
      attachments: (input.attachments ?? []).map((a) => ({ id: snowflake(), ...a })),
      interactionId: undefined,
      webhookId: undefined,
      createdAt: now(),
      editedAt: undefined,
      edits: 0,
      deleted: false,
    };
    state.storeMessage(message);
    return message;
  }

  return { storeUserMessage };
}
