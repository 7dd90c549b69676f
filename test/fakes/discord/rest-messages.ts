/**
 * What the REST routes share about the bot's messages: building one from a body (with its uploads),
 * applying an edit, the JSON Discord answers with, and an interaction's log of responses. Interaction
 * callbacks, interaction webhooks and channel messages all write messages the same way, so the rules
 * (embeds dropped without Embed Links, a deferred reply filled in without being marked edited) live once.
 */
import { PermissionFlagsBits } from 'discord.js';
import { echoEmbeds, messagePayload, userOf, userPayload, type World } from './payloads.js';
import {
  DiscordError,
  EPHEMERAL,
  IS_COMPONENTS_V2,
  LOADING,
  SUPPRESS_EMBEDS,
  SUPPRESS_NOTIFICATIONS,
  isRecord,
  type RestContext,
  type RestRequest,
} from './rest-context.js';
import type { InteractionRecord } from './state.js';
import type { RecordedMessage, ResponseKind } from './types.js';

function attachmentsFrom(
  { state }: RestContext,
  req: RestRequest,
  body: Record<string, unknown>,
  channelId: string,
  existing: Record<string, unknown>[],
): Record<string, unknown>[] {
  const listed = Array.isArray(body['attachments']) ? body['attachments'].filter(isRecord) : undefined;
  const kept =
    listed === undefined
      ? existing
      : existing.filter((a) => listed.some((l) => String(l['id']) === String(a['id'])));
  const uploaded = req.files.map((file, index) => {
    const id = state.snowflake();
    const meta = listed?.find((l) => String(l['id']) === String(index));
    const filename = typeof meta?.['filename'] === 'string' ? meta['filename'] : file.filename;
    const cdnPath = `/cdn/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    state.files.set(cdnPath, { data: file.data, contentType: file.contentType });
    const attachment: Record<string, unknown> = {
      id,
      filename,
      size: file.data.length,
      url: `${state.baseUrl}${cdnPath}`,
      proxy_url: `${state.baseUrl}${cdnPath}`,
      content_type: file.contentType,
    };
    if (typeof meta?.['description'] === 'string') attachment['description'] = meta['description'];
    return attachment;
  });
  return [...kept, ...uploaded];
}

function guildIdOf(rest: RestContext, channelId: string): { guild_id?: string } {
  const guildId = rest.guildIdOfChannel(channelId);
  return guildId === undefined ? {} : { guild_id: guildId };
}

export function newMessage(
  rest: RestContext,
  req: RestRequest,
  body: Record<string, unknown>,
  channelId: string,
  extra: { interactionId?: string; webhook?: boolean; flags?: number },
): RecordedMessage {
  const { state, world } = rest;
  const id = state.snowflake();
  const reference = body['message_reference'];
  const embedsAllowed =
    (rest.botPermissionsIn(channelId) & PermissionFlagsBits.EmbedLinks) !== 0n || extra.webhook;
  return {
    id,
    channelId,
    authorId: world.bot.id,
    bot: true,
    content: typeof body['content'] === 'string' ? body['content'] : '',
    // Without Embed Links Discord drops embeds silently (interaction responses are exempt).
    embeds: embedsAllowed ? echoEmbeds(body['embeds']) : [],
    components: Array.isArray(body['components']) ? body['components'].filter(isRecord) : [],
    allowedMentions: body['allowed_mentions'],
    flags:
      (extra.flags ?? 0) |
      (typeof body['flags'] === 'number'
        ? body['flags'] & (SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2)
        : 0),
    messageReference: isRecord(reference)
      ? {
          message_id: String(reference['message_id']),
          channel_id: channelId,
          ...guildIdOf(rest, channelId),
        }
      : undefined,
    attachments: attachmentsFrom(rest, req, body, channelId, []),
    interactionId: extra.interactionId,
    webhookId: extra.webhook === true ? state.applicationId : undefined,
    createdAt: state.now(),
    editedAt: undefined,
    edits: 0,
    deleted: false,
  };
}

/** `asEdit: false` when the change fills in a deferred reply (Discord does not mark that as edited). */
export function applyEdit(
  rest: RestContext,
  req: RestRequest,
  message: RecordedMessage,
  body: Record<string, unknown>,
  { asEdit = true }: { asEdit?: boolean } = {},
): void {
  if ('content' in body) message.content = typeof body['content'] === 'string' ? body['content'] : '';
  if ('embeds' in body) message.embeds = echoEmbeds(body['embeds']);
  if ('components' in body) {
    message.components = Array.isArray(body['components']) ? body['components'].filter(isRecord) : [];
  }
  if ('allowed_mentions' in body) message.allowedMentions = body['allowed_mentions'];
  if ('attachments' in body || req.files.length > 0) {
    message.attachments = attachmentsFrom(rest, req, body, message.channelId, message.attachments);
  }
  if (typeof body['flags'] === 'number') {
    // SUPPRESS_EMBEDS goes both ways; IS_COMPONENTS_V2 can be set by an edit, never taken off.
    message.flags =
      (message.flags & ~SUPPRESS_EMBEDS) | (body['flags'] & (SUPPRESS_EMBEDS | IS_COMPONENTS_V2));
  }
  message.flags &= ~LOADING;
  if (asEdit) {
    message.editedAt = rest.state.now();
    message.edits += 1;
  }
  rest.state.notify();
}

function interactionMetadata(world: World, interaction: InteractionRecord): Record<string, unknown> {
  return {
    id: interaction.id,
    type: interaction.type,
    user: userPayload(userOf(world, interaction.userId)),
    authorizing_integration_owners: { ...interaction.owners },
  };
}

export function messageJson(rest: RestContext, message: RecordedMessage): Record<string, unknown> {
  const { state } = rest;
  // Authors are looked up in the message's own server.
  const world = rest.messageWorldOf(message.channelId);
  const interaction =
    message.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
  return messagePayload(
    world,
    message,
    interaction === undefined
      ? {}
      : {
          interactionMetadata: interactionMetadata(world, interaction),
          type: interaction.type === 2 ? 20 : 0,
        },
  );
}

/**
 * True when Discord turns this answer ephemeral though the body did not ask (a user install in a server
 * that turned Use External Apps off for the member); such answers get EPHEMERAL whatever they say.
 */
export function forcedEphemeral(interaction: InteractionRecord, body: Record<string, unknown>): boolean {
  if (!interaction.forceEphemeral) return false;
  const flags = typeof body['flags'] === 'number' ? body['flags'] : 0;
  return (flags & EPHEMERAL) === 0;
}

/** Adds one answer (refusals included) to what the interaction's handle reports. */
export function recordResponse(
  { state }: RestContext,
  interaction: InteractionRecord,
  kind: ResponseKind,
  req: RestRequest,
  status: number,
  messageId?: string,
  { forcedEphemeral = false }: { forcedEphemeral?: boolean } = {},
) {
  const callbackType = kind === 'callback' && isRecord(req.body) ? req.body['type'] : undefined;
  interaction.responses.push({
    kind,
    callbackType: typeof callbackType === 'number' ? callbackType : undefined,
    body: req.body,
    status,
    ms: state.now() - interaction.dispatchedAt,
    messageId,
    ...(forcedEphemeral ? { forcedEphemeral } : {}),
  });
  state.notify();
}

export function liveMessage({ state }: RestContext, id: string | undefined): RecordedMessage {
  const message = id === undefined ? undefined : state.messages.get(id);
  if (message === undefined || message.deleted) {
    throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
  }
  return message;
}
