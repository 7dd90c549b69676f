/**
 * A member submitting a modal the bot showed (`submitModal`): INTERACTION_CREATE type 5 (MODAL_SUBMIT)
 * whose `data` is `{ custom_id, components }` in the shape Discord sends and discord.js's
 * ModalSubmitFields reads: a Label as `{ type: 18, id, component: { type: 4, id, custom_id, value } }`
 * (a string select: `{ type: 3, id, custom_id, values }`), the older action row as
 * `{ type: 1, id, components: [{ type: 4, id, custom_id, value }] }`, a Text Display as `{ type: 10, id }`.
 * It carries `message` when a message component opened the modal (that message is then the one a
 * callback 6 or 7 updates). Refused the way Discord's client would not let it be sent (modals.ts).
 */
import { messagePayload, userOf, userPayload } from '../payloads.js';
import { modalFields, type ModalField } from '../modals.js';
import type { Scenario } from './context.js';
import type { DispatchInteraction } from './interactions.js';
import type { InteractionHandle, ModalSubmitOptions } from './types.js';

export interface ModalSubmits {
  submitModal(opts: ModalSubmitOptions): InteractionHandle;
}

/** What the member typed or picked in one field, checked as the client checks it before sending. */
function submitted(field: ModalField, given: string | readonly string[] | undefined, modalId: string) {
  const where = `field ${field.customId} of modal ${modalId}`;
  if (field.kind === 'text') {
    if (given !== undefined && typeof given !== 'string')
      throw new Error(`fake Discord: ${where} takes text`);
    const value = given ?? field.prefilled;
    const length = [...value].length;
    if (field.required && length === 0) throw new Error(`fake Discord: ${where} is required`);
    if (length > field.maxLength) {
      throw new Error(`fake Discord: ${where} takes at most ${field.maxLength} characters, not ${length}`);
    }
    if (length > 0 && length < field.minLength) {
      throw new Error(`fake Discord: ${where} takes at least ${field.minLength} characters, not ${length}`);
    }
    return { type: 4, id: field.id, custom_id: field.customId, value };
  }
  if (typeof given === 'string') throw new Error(`fake Discord: ${where} takes a list of picks`);
  const values = [...(given ?? [])];
  const foreign = values.filter((v) => !field.offered.includes(v));
  if (foreign.length > 0) throw new Error(`fake Discord: ${where} offers no ${foreign.join(', ')}`);
  if (new Set(values).size !== values.length)
    throw new Error(`fake Discord: ${where} picks each option once`);
  const min = field.required ? Math.max(1, field.minValues) : 0;
  if (values.length < min || values.length > field.maxValues) {
    throw new Error(`fake Discord: ${where} takes ${min}..${field.maxValues} picks, not ${values.length}`);
  }
  return { type: 3, id: field.id, custom_id: field.customId, values };
}

export function createModalSubmits(
  scenario: Scenario,
  dispatchInteraction: DispatchInteraction,
): ModalSubmits {
  const { state } = scenario;
  return {
    submitModal(opts) {
      const opener = state.interactions.get(opts.opener.id);
      const modal = opener?.modal;
      if (opener === undefined || modal === undefined) {
        throw new Error(`fake Discord: interaction ${opts.opener.id} showed no modal to submit`);
      }
      const modalId = String(modal['custom_id']);
      const { fields, texts } = modalFields(modal);
      const values = opts.values ?? {};
      const unknown = Object.keys(values).filter((id) => !fields.some((f) => f.customId === id));
      if (unknown.length > 0) {
        throw new Error(`fake Discord: modal ${modalId} has no field ${unknown.join(', ')}`);
      }
      const components = [
        ...fields.map((field) => {
          const inner = submitted(field, values[field.customId], modalId);
          return field.holderType === 18
            ? { type: 18, id: field.holderId, component: inner }
            : { type: 1, id: field.holderId, components: [inner] };
        }),
        ...texts.map((id) => ({ type: 10, id })),
      ].sort((a, b) => a.id - b.id);
      const message =
        opener.componentMessageId === undefined ? undefined : state.messages.get(opener.componentMessageId);
      const world = scenario.worldOf(opener.channelId);
      // The message as a component interaction carries it (with the interaction it answered, if any).
      const answered =
        message?.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
      const payloadMessage =
        message === undefined
          ? undefined
          : messagePayload(
              world,
              message,
              answered === undefined
                ? {}
                : {
                    type: answered.type === 2 ? 20 : 0,
                    interactionMetadata: {
                      id: answered.id,
                      type: answered.type,
                      user: userPayload(userOf(world, answered.userId)),
                      authorizing_integration_owners: { ...answered.owners },
                    },
                  },
            );
      return dispatchInteraction(
        5,
        {
          channel: opener.channelId,
          userId: opener.userId,
          ...(opts.locale === undefined ? {} : { locale: opts.locale }),
        },
        { custom_id: modalId, components },
        {
          ...(message === undefined ? {} : { componentMessageId: message.id }),
          ...(payloadMessage === undefined ? {} : { message: payloadMessage }),
          owners: opener.owners,
        },
      );
    },
  };
}
