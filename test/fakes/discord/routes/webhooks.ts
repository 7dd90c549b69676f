/**
 * Interaction webhooks: editReply, fetchReply, deleteReply (`messages/@original`), follow-ups and their
 * edits. Valid for the token lifetime after the interaction, and only once it was acknowledged. They need
 * no guild of the bot's: they work the same for user-installed interactions in servers the bot is not in
 * and in DMs between users. An interaction authorized by a user install only (`authorizing_integration_
 * owners` holding just "1") gets at most 5 follow-up messages: a 6th is refused 400 40094; where Discord
 * forces the answers ephemeral, follow-ups get EPHEMERAL whatever they asked (`forcedEphemeral`).
 */
import {
  DiscordError,
  EPHEMERAL,
  IS_COMPONENTS_V2,
  LOADING,
  SUPPRESS_EMBEDS,
  isRecord,
  type Handler,
  type Params,
  type Reply,
  type RestContext,
  type RestRequest,
} from '../rest-context.js';
import {
  applyEdit,
  forcedEphemeral,
  liveMessage,
  messageJson,
  newMessage,
  recordResponse,
} from '../rest-messages.js';
import type { InteractionRecord } from '../state.js';
import type { RecordedMessage, ResponseKind } from '../types.js';
import { isEmptyMessage } from '../validate.js';

/** Follow-up messages Discord allows an interaction authorized by a user install only. */
const USER_INSTALL_FOLLOWUP_LIMIT = 5;

export function registerWebhookRoutes(rest: RestContext): void {
  const { state, add, validate, recordMentions } = rest;

  /** @original: the response message, or for a component interaction the message the component is on. */
  function originalOf(interaction: InteractionRecord): RecordedMessage {
    if (interaction.ackType === undefined) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'not-acknowledged');
    }
    return liveMessage(rest, interaction.originalMessageId);
  }

  function webhookMessageOf(interaction: InteractionRecord, messageId: string): RecordedMessage {
    if (messageId === '@original') return originalOf(interaction);
    if (!interaction.followupIds.has(messageId) && messageId !== interaction.originalMessageId) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    }
    return liveMessage(rest, messageId);
  }

  /**
   * Runs an interaction-webhook handler: the token must belong to a live interaction of this application
   * and the interaction must have been acknowledged; every outcome, refusals included, is recorded once
   * in the interaction's responses.
   */
  function viaInteractionWebhook(
    kindOf: (p: Params) => ResponseKind,
    run: (
      req: RestRequest,
      p: Params,
      interaction: InteractionRecord,
    ) => { reply: Reply; messageId?: string; forcedEphemeral?: boolean },
  ): Handler {
    return (req, p) => {
      const interaction = state.interactionsByToken.get(p['token'] ?? '');
      if (p['app'] !== state.applicationId || interaction === undefined) {
        throw new DiscordError(404, 10015, 'Unknown Webhook', 'unknown-resource');
      }
      const kind = kindOf(p);
      try {
        if (state.now() - interaction.dispatchedAt > state.tokenLifetimeMs) {
          throw new DiscordError(401, 50027, 'Invalid Webhook Token', 'expired-token');
        }
        if (interaction.ackType === undefined) {
          throw new DiscordError(404, 10015, 'Unknown Webhook', 'not-acknowledged');
        }
        const { reply, messageId, forcedEphemeral: forced } = run(req, p, interaction);
        if (req.method !== 'GET') {
          recordResponse(rest, interaction, kind, req, reply.status, messageId, {
            forcedEphemeral: forced === true,
          });
        }
        return reply;
      } catch (error) {
        if (error instanceof DiscordError && req.method !== 'GET')
          recordResponse(rest, interaction, kind, req, error.status);
        throw error;
      }
    };
  }

  const messageKind =
    (original: ResponseKind, other: ResponseKind) =>
    (p: Params): ResponseKind =>
      p['message'] === '@original' ? original : other;

  add(
    'PATCH',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('edit-original', 'edit-followup'), (req, p, interaction) => {
      const body = isRecord(req.body) ? req.body : {};
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      validate('IncomingWebhookUpdateRequestPartial', body, body, message);
      applyEdit(rest, req, message, body);
      recordMentions(req, '/webhooks/:app/:token/messages/:message', body, message.id);
      return { reply: { status: 200, body: messageJson(rest, message) }, messageId: message.id };
    }),
    false,
  );
  add(
    'GET',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('edit-original', 'edit-followup'), (_req, p, interaction) => {
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      return { reply: { status: 200, body: messageJson(rest, message) }, messageId: message.id };
    }),
    false,
  );
  add(
    'DELETE',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('delete-original', 'delete-followup'), (_req, p, interaction) => {
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      message.deleted = true;
      state.notify();
      return { reply: { status: 204 }, messageId: message.id };
    }),
    false,
  );
  add(
    'POST',
    '/webhooks/:app/:token',
    viaInteractionWebhook(
      () => 'followup',
      (req, _p, interaction) => {
        const body = isRecord(req.body) ? req.body : {};
        validate('IncomingWebhookRequestPartial', body, body);
        if (isEmptyMessage(body, req.files.length)) {
          throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
        }
        const wait = req.query.get('wait') === 'true';
        // After a deferred reply (5) the first follow-up fills in the loading message instead of posting
        // anew (keeping the defer's ephemeral flag), as Discord does; it may make it Components V2 (the
        // defer itself cannot: Discord drops that flag from callback 5).
        const loading =
          interaction.ackType === 5 ? state.messages.get(interaction.originalMessageId ?? '') : undefined;
        let message: RecordedMessage;
        let forced = false;
        if (loading !== undefined && !loading.deleted && (loading.flags & LOADING) !== 0) {
          applyEdit(
            rest,
            req,
            loading,
            {
              ...body,
              flags:
                (loading.flags & SUPPRESS_EMBEDS) |
                (typeof body['flags'] === 'number' ? body['flags'] & IS_COMPONENTS_V2 : 0),
            },
            { asEdit: false },
          );
          message = loading;
        } else {
          const owners = Object.keys(interaction.owners);
          if (
            owners.length === 1 &&
            owners[0] === '1' &&
            interaction.followupIds.size >= USER_INSTALL_FOLLOWUP_LIMIT
          ) {
            throw new DiscordError(
              400,
              40094,
              'This interaction has hit the maximum number of follow up messages',
              'followup-limit',
            );
          }
          forced = forcedEphemeral(interaction, body);
          message = newMessage(rest, req, body, interaction.channelId, {
            interactionId: interaction.id,
            webhook: true,
            flags: interaction.forceEphemeral ? EPHEMERAL : 0,
          });
          state.storeMessage(message);
          interaction.followupIds.add(message.id);
        }
        recordMentions(req, '/webhooks/:app/:token', body, message.id);
        return {
          reply: wait ? { status: 200, body: messageJson(rest, message) } : { status: 204 },
          messageId: message.id,
          forcedEphemeral: forced,
        };
      },
    ),
    false,
  );
}
