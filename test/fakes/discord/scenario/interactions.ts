/**
 * Interactions towards the bot: slash commands, autocomplete and message commands (`sendCommand`,
 * `sendAutocomplete`, `sendMessageCommand`), and the one INTERACTION_CREATE every kind goes through
 * (components too: scenario/components.ts). Each is recorded for the REST routes that answer it (its
 * answer window, callbacks, follow-ups) and handed back as an InteractionHandle.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationCommandType } from 'discord.js';
import { memberPayload, messagePayload, userOf, userPayload } from '../payloads.js';
import type { FakeState, InteractionRecord, StoredCommand } from '../state.js';
import type { RecordedMessage } from '../types.js';
import { buildOptions, createOptionData } from './command-options.js';
import { contextOf, type Scenario } from './context.js';
import type { UserMessages } from './forwards.js';
import type {
  AutocompleteOptions,
  CommandOptions,
  CommonInteractionOptions,
  InteractionHandle,
  MessageCommandOptions,
} from './types.js';
import { createUserInstalls } from './user-installs.js';

/** MessageFlags.Loading: a deferred reply not yet filled in. */
const LOADING_FLAG = 1 << 7;

/** What a dispatch carries besides its type, place and data. */
export interface DispatchExtra {
  componentMessageId?: string;
  message?: Record<string, unknown>;
  /** The registered command, to check where Discord offers it. */
  command?: StoredCommand | undefined;
  /** A component on a message answering another interaction keeps that interaction's owners. */
  owners?: Readonly<Record<string, string>> | undefined;
}

export type DispatchInteraction = (
  type: number,
  common: CommonInteractionOptions,
  data: Record<string, unknown>,
  extra?: DispatchExtra,
) => InteractionHandle;

export interface Interactions {
  dispatchInteraction: DispatchInteraction;
  sendCommand(opts: CommandOptions): InteractionHandle;
  sendAutocomplete(opts: AutocompleteOptions): InteractionHandle;
  sendMessageCommand(opts: MessageCommandOptions): InteractionHandle;
}

function createHandle(
  state: FakeState,
  record: InteractionRecord,
  payload: Record<string, unknown>,
): InteractionHandle {
  let acknowledged: Promise<{ type: number; ms: number }> | undefined;
  const snapshot = (message: RecordedMessage): RecordedMessage => structuredClone(message);
  const completed = (): RecordedMessage | undefined => {
    const { ackType } = record;
    if (ackType === undefined) return undefined;
    const message =
      record.originalMessageId === undefined ? undefined : state.messages.get(record.originalMessageId);
    if (message === undefined) return undefined;
    if (ackType === 4 || ackType === 7) return snapshot(message);
    if (ackType === 5) return (message.flags & LOADING_FLAG) === 0 ? snapshot(message) : undefined;
    if (ackType === 6) {
      const edited = record.responses.some((r) => r.kind === 'edit-original' && r.status === 200);
      return edited ? snapshot(message) : undefined;
    }
    return undefined;
  };
  return {
    id: record.id,
    token: record.token,
    payload,
    get acknowledged() {
      acknowledged ??= state.waitFor(
        () =>
          record.ackType === undefined || record.ackAt === undefined
            ? undefined
            : { type: record.ackType, ms: record.ackAt - record.dispatchedAt },
        state.answerWindowMs + 200,
        () => `interaction ${record.id} to be acknowledged`,
      );
      return acknowledged;
    },
    finalReply(timeoutMs = 5000) {
      return state.waitFor(completed, timeoutMs, () => {
        const seen = record.responses.map((r) => `${r.kind}${r.callbackType ?? ''}:${r.status}`).join(', ');
        return `the final reply to interaction ${record.id} (responses so far: ${seen || 'none'})`;
      });
    },
    responses: record.responses,
    autocompleteChoices(timeoutMs = 5000) {
      return state.waitFor(
        () => record.choices,
        timeoutMs,
        () => `autocomplete choices for interaction ${record.id}`,
      );
    },
    replyMessage() {
      const id = record.originalMessageId;
      const message = id === undefined ? undefined : state.messages.get(id);
      return message === undefined ? undefined : snapshot(message);
    },
    followUps() {
      return [...record.followupIds].flatMap((id) => {
        const message = state.messages.get(id);
        return message === undefined ? [] : [snapshot(message)];
      });
    },
    forcedEphemeral: record.forceEphemeral,
  };
}

export function createInteractions(scenario: Scenario, userMessages: UserMessages): Interactions {
  const { state, world, now, snowflake, applicationId, channelIdOf, placeOf, dispatchToShard } = scenario;
  const { storeUserMessage } = userMessages;
  const installs = createUserInstalls(scenario);
  const { commandNamed } = installs;
  const optionData = createOptionData(scenario);

  function dispatchInteraction(
    type: number,
    common: CommonInteractionOptions,
    data: Record<string, unknown>,
    extra: DispatchExtra = {},
  ): InteractionHandle {
    const channelId = channelIdOf(common.channel);
    const place = placeOf(channelId);
    const w = place.kind === 'guild' ? place.w : world;
    const userId = common.userId ?? w.dmUserId;
    const inGuild = place.kind === 'guild';
    const id = snowflake();
    const interactionToken = `aW50ZXJhY3Rpb24${randomBytes(48).toString('base64url')}`;
    const context = contextOf(place);
    const authorized = installs.authorize(place, common.install, userId, extra.command, id);
    const owners = extra.owners ?? authorized;
    const { memberPerms, forceEphemeral, channelJson, appPermissions } = installs.placeFacts(
      place,
      w,
      channelId,
      common,
      userId,
    );
    if (type === 2 && data['type'] === ApplicationCommandType.ChatInput) {
      optionData.resolveOptionData(data, place, memberPerms, userId);
    }
    const payload: Record<string, unknown> = {
      id,
      application_id: applicationId,
      type,
      data,
      token: interactionToken,
      version: 1,
      locale: common.locale ?? 'en-US',
      entitlements: [],
      attachment_size_limit: 10 * 1024 * 1024,
      channel_id: channelId,
      channel: channelJson,
      app_permissions: appPermissions.toString(),
      authorizing_integration_owners: { ...owners },
      context,
    };
    if (inGuild) {
      payload['guild_id'] = w.guildId;
      payload['guild_locale'] = w.preferredLocale;
      payload['guild'] = { id: w.guildId, locale: w.preferredLocale, features: [] };
      payload['member'] = memberPayload(w, userId, { permissions: memberPerms });
    } else {
      payload['user'] = userPayload(userOf(world, userId));
    }
    if (extra.message !== undefined) payload['message'] = extra.message;
    const record: InteractionRecord = {
      id,
      token: interactionToken,
      type,
      channelId,
      guildId: inGuild ? w.guildId : undefined,
      userId,
      context,
      owners,
      forceEphemeral,
      dispatchedAt: now(),
      componentMessageId: extra.componentMessageId,
      ackType: undefined,
      ackAt: undefined,
      originalMessageId: undefined,
      ephemeral: false,
      choices: undefined,
      modal: undefined,
      responses: [],
      followupIds: new Set(),
      deadline: undefined,
    };
    record.deadline = setTimeout(() => {
      if (record.ackType === undefined) {
        state.violation({
          kind: 'late-answer',
          message: `interaction ${id} (${String(data['name'] ?? data['custom_id'])}) not answered within ${state.answerWindowMs} ms`,
        });
      }
    }, state.answerWindowMs);
    record.deadline.unref();
    state.interactions.set(id, record);
    state.interactionsByToken.set(interactionToken, record);
    // Events with a guild_id go to its shard (a server the bot is not in too); the rest to shard 0.
    dispatchToShard('INTERACTION_CREATE', inGuild ? w.guildId : undefined, () => payload);
    return createHandle(state, record, payload);
  }

  return {
    dispatchInteraction,

    sendCommand(opts) {
      const channelId = channelIdOf(opts.channel);
      const command = commandNamed(opts.name, ApplicationCommandType.ChatInput, channelId);
      const attachments = optionData.attachmentInputs(opts.attachments, channelId);
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.ChatInput,
        options: buildOptions(
          command,
          opts.options,
          { group: opts.subcommandGroup, sub: opts.subcommand },
          attachments.options,
        ),
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      if (Object.keys(attachments.resolved).length > 0)
        data['resolved'] = { attachments: attachments.resolved };
      return dispatchInteraction(2, opts, data, { command });
    },

    sendAutocomplete(opts) {
      const command = commandNamed(opts.name, ApplicationCommandType.ChatInput, channelIdOf(opts.channel));
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.ChatInput,
        options: buildOptions(
          command,
          opts.options,
          { group: opts.subcommandGroup, sub: opts.subcommand, focused: opts.focused },
          [],
        ),
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      return dispatchInteraction(4, opts, data, { command });
    },

    sendMessageCommand(opts) {
      const channelId = channelIdOf(opts.channel);
      const command = commandNamed(opts.name, ApplicationCommandType.Message, channelId);
      const existing =
        opts.targetMessage.id === undefined ? undefined : state.messages.get(opts.targetMessage.id);
      const target =
        existing ??
        storeUserMessage(channelId, {
          content: opts.targetMessage.content,
          authorId: opts.targetMessage.authorId,
          embeds: opts.targetMessage.embeds,
          attachments: opts.targetMessage.attachments,
          forwardOf: opts.targetMessage.forwardOf,
        });
      const data: Record<string, unknown> = {
        id: command?.id ?? snowflake(),
        name: opts.name,
        type: ApplicationCommandType.Message,
        target_id: target.id,
        // The full target, snapshots of a forward included, whatever intents the bot holds.
        resolved: { messages: { [target.id]: messagePayload(world, target) } },
      };
      if (command?.['guild_id'] !== undefined) data['guild_id'] = command['guild_id'];
      return dispatchInteraction(2, opts, data, { command });
    },
  };
}
