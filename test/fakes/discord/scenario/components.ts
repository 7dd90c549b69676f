/**
 * A member using a component of one of the bot's messages: a button click (`sendButton`), a string
 * select pick (`sendSelect`) or a channel select pick (`sendChannelSelect`), the component found anywhere
 * in the message's tree. Refused like a member
 * who could not use it (unknown or deleted message, no such component, a disabled select, values it does
 * not offer); else INTERACTION_CREATE type 3 through `dispatchInteraction` (scenario/interactions.ts).
 */
import { ComponentType } from 'discord.js';
import {
  botChannelPermissions,
  memberPermissions,
  messagePayload,
  partialChannelPayload,
  userOf,
  userPayload,
} from '../payloads.js';
import type { RecordedMessage } from '../types.js';
import { componentWithCustomId, customIdsOf, type ComponentJson } from '../v2.js';
import type { Scenario } from './context.js';
import type { DispatchInteraction } from './interactions.js';
import type {
  ButtonOptions,
  ChannelSelectOptions,
  ComponentOptions,
  InteractionHandle,
  SelectOptions,
} from './types.js';

export interface ComponentUses {
  sendButton(opts: ButtonOptions): InteractionHandle;
  sendSelect(opts: SelectOptions): InteractionHandle;
  sendChannelSelect(opts: ChannelSelectOptions): InteractionHandle;
}

/** min_values..max_values of a select as sent (Discord's defaults 1 and 1). */
function pickBounds(component: ComponentJson): { min: number; max: number } {
  return {
    min: typeof component['min_values'] === 'number' ? component['min_values'] : 1,
    max: typeof component['max_values'] === 'number' ? component['max_values'] : 1,
  };
}

export function createComponentUses(
  scenario: Scenario,
  dispatchInteraction: DispatchInteraction,
): ComponentUses {
  const { state, world, now } = scenario;

  /**
   * The live message a component interaction starts from and the component with `customId` on it, found
   * anywhere in its tree (action rows, containers, a section's accessory); throws like a member who
   * could not click it.
   */
  function componentOn(
    target: ComponentOptions['message'],
    customId: string,
    caller: string,
  ): { message: RecordedMessage; component: ComponentJson } {
    const message = state.messages.get(target.id);
    if (message === undefined || message.deleted) {
      throw new Error(`fake Discord: ${caller} on unknown message ${target.id}`);
    }
    const component = componentWithCustomId(message, customId);
    if (component === undefined) {
      const present = customIdsOf(message);
      throw new Error(
        `fake Discord: message ${message.id} has no component ${customId} (has: ${present.join(', ') || 'none'})`,
      );
    }
    return { message, component };
  }

  /**
   * INTERACTION_CREATE type 3 for a component of `message`: `data` plus the component's `id` as Discord
   * numbered it, and the message as Discord sends it (with the interaction it answered, if any).
   */
  function dispatchComponent(
    message: RecordedMessage,
    opts: ComponentOptions,
    data: Record<string, unknown>,
  ): InteractionHandle {
    const interaction =
      message.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
    const payloadMessage = messagePayload(
      world,
      message,
      interaction === undefined
        ? {}
        : {
            type: interaction.type === 2 ? 20 : 0,
            interactionMetadata: {
              id: interaction.id,
              type: interaction.type,
              user: userPayload(userOf(world, interaction.userId)),
              authorizing_integration_owners: { ...interaction.owners },
            },
          },
    );
    const numbered = componentWithCustomId(
      payloadMessage['components'] as unknown[],
      String(data['custom_id']),
    );
    // A component on an interaction's answer is authorized by that interaction's installs (its user
    // install stays the one of the user who ran the command, whoever clicks).
    return dispatchInteraction(
      3,
      { ...opts, channel: opts.channel ?? message.channelId },
      { ...(numbered === undefined ? {} : { id: numbered['id'] }), ...data },
      { componentMessageId: message.id, message: payloadMessage, owners: interaction?.owners },
    );
  }

  return {
    sendButton(opts) {
      const { message, component } = componentOn(opts.message, opts.customId, 'sendButton');
      if (component.type !== ComponentType.Button) {
        throw new Error(
          `fake Discord: ${opts.customId} on message ${message.id} is a component of type ${component.type}, not a button`,
        );
      }
      return dispatchComponent(message, opts, {
        custom_id: opts.customId,
        component_type: ComponentType.Button,
      });
    },

    sendSelect(opts) {
      const { message, component } = componentOn(opts.message, opts.customId, 'sendSelect');
      if (component.type !== ComponentType.StringSelect) {
        throw new Error(
          `fake Discord: ${opts.customId} on message ${message.id} is a component of type ${component.type}, not a string select`,
        );
      }
      if (component['disabled'] === true) {
        throw new Error(`fake Discord: the select ${opts.customId} on message ${message.id} is disabled`);
      }
      const offered = (Array.isArray(component['options']) ? component['options'] : []).flatMap(
        (option: unknown) =>
          typeof option === 'object' &&
          option !== null &&
          typeof (option as { value?: unknown }).value === 'string'
            ? [(option as { value: string }).value]
            : [],
      );
      const foreign = opts.values.filter((v) => !offered.includes(v));
      if (foreign.length > 0) {
        throw new Error(
          `fake Discord: the select ${opts.customId} offers no ${foreign.join(', ')} (offers: ${offered.join(', ')})`,
        );
      }
      if (new Set(opts.values).size !== opts.values.length) {
        throw new Error(`fake Discord: a member picks each option of ${opts.customId} at most once`);
      }
      const { min, max } = pickBounds(component);
      if (opts.values.length < min || opts.values.length > max) {
        throw new Error(
          `fake Discord: the select ${opts.customId} takes ${min}..${max} values, not ${opts.values.length}`,
        );
      }
      return dispatchComponent(message, opts, {
        custom_id: opts.customId,
        component_type: ComponentType.StringSelect,
        values: [...opts.values],
      });
    },

    sendChannelSelect(opts) {
      const { message, component } = componentOn(opts.message, opts.customId, 'sendChannelSelect');
      if (component.type !== ComponentType.ChannelSelect) {
        throw new Error(
          `fake Discord: ${opts.customId} on message ${message.id} is a component of type ${component.type}, not a channel select`,
        );
      }
      if (component['disabled'] === true) {
        throw new Error(`fake Discord: the select ${opts.customId} on message ${message.id} is disabled`);
      }
      // Discord's picker lists the channels of the message's server (of the types the select takes).
      const w = scenario.worldOf(message.channelId);
      // Who picks: as dispatchInteraction defaults it (the plain member).
      const userId = opts.userId ?? w.dmUserId;
      const types = Array.isArray(component['channel_types'])
        ? component['channel_types'].filter((t): t is number => typeof t === 'number')
        : [];
      const ids = opts.values.map((value) => {
        const id = scenario.channelIdOf(value);
        const channel = w.channels.get(id);
        if (channel === undefined) {
          throw new Error(`fake Discord: ${value} is not a channel of the server of message ${message.id}`);
        }
        if (types.length > 0 && !types.includes(channel.type)) {
          throw new Error(
            `fake Discord: the select ${opts.customId} takes channel types ${types.join(', ')}, not ${channel.type} (${channel.name})`,
          );
        }
        return id;
      });
      if (new Set(ids).size !== ids.length) {
        throw new Error(`fake Discord: a member picks each channel of ${opts.customId} at most once`);
      }
      const { min, max } = pickBounds(component);
      if (ids.length < min || ids.length > max) {
        throw new Error(
          `fake Discord: the select ${opts.customId} takes ${min}..${max} values, not ${ids.length}`,
        );
      }
      const permissions =
        opts.permissions === undefined ? memberPermissions(w, userId) : BigInt(opts.permissions);
      const channels = Object.fromEntries(
        ids.map((id) => {
          const channel = w.channels.get(id);
          if (channel === undefined) throw new Error(`fake Discord: channel ${id} vanished`);
          const app = botChannelPermissions(w, id);
          return [id, partialChannelPayload(w, channel, now, { permissions, appPermissions: app })];
        }),
      );
      return dispatchComponent(message, opts, {
        custom_id: opts.customId,
        component_type: ComponentType.ChannelSelect,
        values: ids,
        resolved: { channels },
      });
    },
  };
}
