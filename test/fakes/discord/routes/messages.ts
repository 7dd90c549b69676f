/**
 * Channel messages: list, fetch, send, edit, delete, react. The bot needs the permissions Discord asks for
 * (threads take Send Messages in Threads; someone else's message only takes a flags change, with Manage
 * Messages); a channel it cannot see answers 50001 Missing Access. A send with `nonce` and
 * `enforce_nonce: true` that repeats a nonce of the bot's in that channel within 5 minutes creates
 * nothing and answers the earlier message (recorded in `state.nonceReplays`).
 */
import { PermissionFlagsBits } from 'discord.js';
import { isThread } from '../payloads.js';
import { DiscordError, EPHEMERAL, invalidForm, isRecord, type RestContext } from '../rest-context.js';
import { applyEdit, liveMessage, messageJson, newMessage } from '../rest-messages.js';
import { NONCE_WINDOW_MS } from '../state.js';
import type { RecordedMessage } from '../types.js';
import { isEmptyMessage } from '../validate.js';

export function registerMessageRoutes(rest: RestContext): void {
  const { state, world, add, channelOf, requireChannel, requireAccess, requirePermission, validate } = rest;
  const { recordMentions } = rest;

  /**
   * `enforce_nonce: true` with a nonce: the message this author created in this channel with the same
   * nonce within the window, if any (Discord then answers it again instead of creating another).
   */
  function nonceKey(channelId: string, body: Record<string, unknown>): string | undefined {
    const nonce = body['nonce'];
    if (body['enforce_nonce'] !== true || (typeof nonce !== 'string' && typeof nonce !== 'number')) {
      return undefined;
    }
    return `${channelId} ${world.bot.id} ${String(nonce)}`;
  }

  add('GET', '/channels/:channel/messages', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory);
    const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 50) || 50));
    const list = state
      .messagesIn(channelId)
      .filter((m) => !m.deleted && (m.flags & EPHEMERAL) === 0)
      .reverse()
      .slice(0, limit);
    return { status: 200, body: list.map((m) => messageJson(rest, m)) };
  });
  add('GET', '/channels/:channel/messages/:message', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory);
    const message = liveMessage(rest, p['message']);
    if (message.channelId !== channelId || (message.flags & EPHEMERAL) !== 0) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    }
    return { status: 200, body: messageJson(rest, message) };
  });
  add('POST', '/channels/:channel/messages', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    const channel = channelOf(channelId)?.channel;
    if (channel !== undefined && ![0, 2, 5, 10, 11, 12, 13].includes(channel.type)) {
      throw new DiscordError(400, 50008, 'Cannot send messages in a non-text channel', 'unknown-resource');
    }
    const isThreadChannel = channel !== undefined && isThread(channel);
    requirePermission(
      channelId,
      PermissionFlagsBits.ViewChannel,
      isThreadChannel ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages,
    );
    if (req.files.length > 0) requirePermission(channelId, PermissionFlagsBits.AttachFiles);
    const body = isRecord(req.body) ? req.body : {};
    validate('MessageCreateRequest', body, body);
    if (isEmptyMessage(body, req.files.length)) {
      throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
    }
    const reference = body['message_reference'];
    if (isRecord(reference) && reference['fail_if_not_exists'] !== false) {
      const target = state.messages.get(String(reference['message_id']));
      if (target === undefined || target.deleted || target.channelId !== channelId) {
        throw invalidForm([
          {
            path: ['message_reference'],
            code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
            message: 'Unknown message',
          },
        ]);
      }
    }
    const key = nonceKey(channelId, body);
    const seen = key === undefined ? undefined : state.nonces.get(key);
    const earlier = seen === undefined ? undefined : state.messages.get(seen.messageId);
    if (seen !== undefined && earlier !== undefined && state.now() - seen.at < NONCE_WINDOW_MS) {
      state.nonceReplays.push({
        channelId,
        authorId: world.bot.id,
        nonce: body['nonce'] as string | number,
        messageId: earlier.id,
        at: state.now(),
      });
      state.notify();
      return { status: 200, body: messageJson(rest, earlier) };
    }
    const nonce = body['nonce'];
    const message: RecordedMessage = {
      ...newMessage(rest, req, body, channelId, {}),
      ...(typeof nonce === 'string' || typeof nonce === 'number' ? { nonce } : {}),
    };
    if (key !== undefined) state.nonces.set(key, { messageId: message.id, at: message.createdAt });
    state.storeMessage(message);
    recordMentions(req, '/channels/:channel/messages', body, message.id);
    return { status: 200, body: messageJson(rest, message) };
  });
  add('PATCH', '/channels/:channel/messages/:message', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requireAccess(channelId);
    const message = liveMessage(rest, p['message']);
    if (message.channelId !== channelId)
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    const body = isRecord(req.body) ? req.body : {};
    validate('MessageEditRequestPartial', body, body, message);
    if (message.authorId !== world.bot.id) {
      // Only flags (SUPPRESS_EMBEDS) may change on someone else's message; tts/enforce_nonce/allowed_mentions
      // ride along in discord.js edits and change nothing.
      const others = ['content', 'embeds', 'components', 'attachments', 'poll'].filter(
        (key) => body[key] != null,
      );
      if (others.length > 0) {
        throw new DiscordError(403, 50005, 'Cannot edit a message authored by another user', 'cannot-edit');
      }
      requirePermission(channelId, PermissionFlagsBits.ManageMessages);
    } else {
      recordMentions(req, '/channels/:channel/messages/:message', body, message.id);
    }
    applyEdit(rest, req, message, body);
    return { status: 200, body: messageJson(rest, message) };
  });
  add('DELETE', '/channels/:channel/messages/:message', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requireAccess(channelId);
    const message = liveMessage(rest, p['message']);
    if (message.channelId !== channelId)
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    if (message.authorId !== world.bot.id) requirePermission(channelId, PermissionFlagsBits.ManageMessages);
    message.deleted = true;
    state.notify();
    return { status: 204 };
  });
  add('PUT', '/channels/:channel/messages/:message/reactions/:emoji/@me', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.AddReactions, PermissionFlagsBits.ReadMessageHistory);
    liveMessage(rest, p['message']);
    return { status: 204 };
  });
}
