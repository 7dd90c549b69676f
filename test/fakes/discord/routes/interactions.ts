/**
 * POST /interactions/:interaction/:token/callback: the first answer to an interaction, within the answer
 * window, once, of a callback type the interaction kind allows, checked against the schema and limits.
 * Where Discord forces a user-installed app's answers ephemeral (a server without Use External Apps for
 * the member), a reply or defer gets EPHEMERAL whatever it asked, recorded as `forcedEphemeral`.
 */
import {
  DiscordError,
  EPHEMERAL,
  IS_COMPONENTS_V2,
  LOADING,
  invalidForm,
  isRecord,
  type RestContext,
} from '../rest-context.js';
import { applyEdit, forcedEphemeral, messageJson, newMessage, recordResponse } from '../rest-messages.js';
import { modalIssues } from '../modals.js';
import type { RecordedMessage } from '../types.js';
import {
  autocompleteIssues,
  editLimitIssues,
  isEmptyMessage,
  messageLimitIssues,
  schemaIssues,
  type SchemaName,
} from '../validate.js';

/**
 * The callback types Discord takes per interaction type (2 command, 3 component, 4 autocomplete, 5 modal);
 * any other is refused as INTERACTION_RESPONSE_TYPE_INVALID.
 */
const ALLOWED_CALLBACKS: Record<number, readonly number[]> = {
  2: [4, 5, 9],
  3: [4, 5, 6, 7, 9],
  4: [8],
  5: [4, 5, 6, 7],
};

const CALLBACK_SCHEMA: Record<number, SchemaName> = {
  4: 'CreateMessageInteractionCallbackRequest',
  5: 'CreateMessageInteractionCallbackRequest',
  6: 'UpdateMessageInteractionCallbackRequest',
  7: 'UpdateMessageInteractionCallbackRequest',
  8: 'ApplicationCommandAutocompleteCallbackRequest',
  9: 'ModalInteractionCallbackRequest',
};

export function registerInteractionRoutes(rest: RestContext): void {
  const { state, add, recordMentions } = rest;

  add(
    'POST',
    '/interactions/:interaction/:token/callback',
    (req, p) => {
      const interaction = state.interactions.get(p['interaction'] ?? '');
      if (interaction === undefined || interaction.token !== p['token']) {
        throw new DiscordError(404, 10062, 'Unknown interaction', 'unknown-resource');
      }
      if (interaction.ackType !== undefined) {
        recordResponse(rest, interaction, 'callback', req, 400);
        throw new DiscordError(
          400,
          40060,
          'Interaction has already been acknowledged.',
          'already-acknowledged',
        );
      }
      const elapsed = state.now() - interaction.dispatchedAt;
      if (elapsed > state.answerWindowMs) {
        recordResponse(rest, interaction, 'callback', req, 404);
        throw new DiscordError(404, 10062, 'Unknown interaction', 'late-answer');
      }
      const body = req.body;
      const type = isRecord(body) ? body['type'] : undefined;
      const schema = typeof type === 'number' ? CALLBACK_SCHEMA[type] : undefined;
      if (schema === undefined || !isRecord(body)) {
        recordResponse(rest, interaction, 'callback', req, 400);
        throw invalidForm([
          { path: ['type'], code: 'BASE_TYPE_CHOICES', message: `Value must be one of (4, 5, 6, 7, 8, 9).` },
        ]);
      }
      const callbackType = type as number;
      if (!(ALLOWED_CALLBACKS[interaction.type] ?? []).includes(callbackType)) {
        recordResponse(rest, interaction, 'callback', req, 400);
        const error = invalidForm([
          {
            path: ['type'],
            code: 'INTERACTION_RESPONSE_TYPE_INVALID',
            message: 'Interaction response type is invalid for this interaction.',
          },
        ]);
        throw new DiscordError(400, 50035, error.message, 'wrong-callback-type', error.errors);
      }
      // A modal submit has a message to update only when a message component opened the modal.
      if (
        interaction.type === 5 &&
        interaction.componentMessageId === undefined &&
        (type === 6 || type === 7)
      ) {
        recordResponse(rest, interaction, 'callback', req, 400);
        const error = invalidForm([
          {
            path: ['type'],
            code: 'INTERACTION_RESPONSE_TYPE_INVALID',
            message: 'Interaction response type is invalid for this interaction.',
          },
        ]);
        throw new DiscordError(400, 50035, error.message, 'wrong-callback-type', error.errors);
      }
      const data = isRecord(body['data']) ? body['data'] : {};
      try {
        const schemaProblems = schemaIssues(schema, body);
        if (schemaProblems.length > 0) throw invalidForm(schemaProblems);
        if (callbackType === 9) {
          const problems = modalIssues(body['data']);
          if (problems.length > 0) {
            const error = invalidForm(problems);
            throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
          }
        } else if (callbackType === 8) {
          const problems = autocompleteIssues(body['data']);
          if (problems.length > 0) {
            const error = invalidForm(problems);
            throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
          }
        } else if (callbackType === 4 || callbackType === 7) {
          // 7 edits the message the component is on: V2 stays V2 (see editLimitIssues).
          const edited =
            callbackType === 7 && interaction.componentMessageId !== undefined
              ? state.messages.get(interaction.componentMessageId)
              : undefined;
          const problems = edited === undefined ? messageLimitIssues(data) : editLimitIssues(edited, data);
          if (problems.length > 0) {
            const error = invalidForm(problems, ['data']);
            throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
          }
          if (callbackType === 4 && isEmptyMessage(data, req.files.length)) {
            throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
          }
        }
      } catch (error) {
        recordResponse(
          rest,
          interaction,
          'callback',
          req,
          error instanceof DiscordError ? error.status : 500,
        );
        throw error;
      }

      interaction.ackType = callbackType;
      interaction.ackAt = state.now();
      if (interaction.deadline !== undefined) clearTimeout(interaction.deadline);
      let messageId: string | undefined;
      let message: RecordedMessage | undefined;
      let forced = false;
      if (callbackType === 4 || callbackType === 5) {
        forced = forcedEphemeral(interaction, data);
        const flags =
          (typeof data['flags'] === 'number' ? data['flags'] : 0) |
          (interaction.forceEphemeral ? EPHEMERAL : 0);
        interaction.ephemeral = (flags & EPHEMERAL) !== 0;
        // A defer cannot make the reply Components V2: Discord drops IS_COMPONENTS_V2 from callback 5
        // (the loading message gets LOADING, and EPHEMERAL if asked; discord/discord-api-docs#7910, #7515);
        // the edit or follow-up that fills it in sets the flag.
        const deferFlags = flags & ~IS_COMPONENTS_V2;
        message = newMessage(
          rest,
          req,
          callbackType === 4 ? data : { flags: deferFlags },
          interaction.channelId,
          {
            interactionId: interaction.id,
            webhook: true,
            flags: (callbackType === 5 ? LOADING : 0) | (interaction.forceEphemeral ? EPHEMERAL : 0),
          },
        );
        state.storeMessage(message);
        interaction.originalMessageId = message.id;
        messageId = message.id;
        if (callbackType === 4)
          recordMentions(req, '/interactions/:interaction/:token/callback', data, message.id);
      } else if (callbackType === 6 || callbackType === 7) {
        interaction.originalMessageId = interaction.componentMessageId;
        messageId = interaction.componentMessageId;
        if (callbackType === 7 && messageId !== undefined) {
          message = state.messages.get(messageId);
          if (message !== undefined) applyEdit(rest, req, message, data);
          recordMentions(req, '/interactions/:interaction/:token/callback', data, messageId);
        }
      } else if (callbackType === 9) {
        interaction.modal = structuredClone(data);
      } else if (callbackType === 8) {
        const choices = Array.isArray(data['choices']) ? data['choices'].filter(isRecord) : [];
        interaction.choices = choices.map((c) => ({
          name: String(c['name']),
          value: c['value'] as string | number,
        }));
      }
      const withResponse = req.query.get('with_response') === 'true';
      recordResponse(rest, interaction, 'callback', req, withResponse ? 200 : 204, messageId, {
        forcedEphemeral: forced,
      });
      if (!withResponse) return { status: 204 };
      return {
        status: 200,
        body: {
          interaction: {
            id: interaction.id,
            type: interaction.type,
            activity_instance_id: null,
            response_message_id: messageId ?? null,
            response_message_loading: callbackType === 5,
            response_message_ephemeral: interaction.ephemeral,
          },
          resource:
            callbackType === 8
              ? { type: callbackType }
              : {
                  type: callbackType,
                  ...(message === undefined ? {} : { message: messageJson(rest, message) }),
                },
        },
      };
    },
    false,
  );
}
