/**
 * The one writer to Discord: every call the runtime makes that Discord shows to anyone goes out here.
 * For interactions, the deferral, the handler's reply, the answer to a failure and autocomplete's choices;
 * for chat messages, the reply and the hiding of their previews; for channels, the posts of background
 * tasks. Every body carries `allowed_mentions` that ping nobody, so the runtime always knows what it sent.
 *
 * Discord's own refusals are told apart: a dead token (expired, or answered elsewhere) gets one warning and
 * no further call with it; a call Discord did not take (5xx or 4xx after the REST client's retries) gets a
 * warning with Discord's code and status, and one private follow-up while the token still works.
 */
import {
  ComponentType,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  type APIComponentInContainer,
  type APIMessageTopLevelComponent,
  type APIModalInteractionResponseCallbackData,
  type ApplicationCommandOptionChoiceData,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChannelSelectMenuInteraction,
  type ModalSubmitInteraction,
  type StringSelectMenuInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  type Message,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { NO_MENTIONS } from '../render/index.js';
import type { MessageAnswer, MessageBody, OutgoingFile, Reply } from './contract.js';
import { discordFailureOf, type DescribeError, type DiscordFailure } from './failures.js';

/** How the runtime acknowledged an interaction: decides how a reply or an error is shown. */
export type Ack = 'none' | 'reply-ephemeral' | 'reply-public' | 'update';

/** The interactions the runtime answers with messages (autocomplete answers with choices instead). */
export type Answerable =
  | ChatInputCommandInteraction
  | MessageContextMenuCommandInteraction
  | ButtonInteraction
  | StringSelectMenuInteraction
  | ChannelSelectMenuInteraction
  | ModalSubmitInteraction;

/** The interactions that may answer with a modal: a click on a message component. */
/** What Discord lets answer with a modal: a command (its first answer) or a message component. */
export type ModalOpener =
  | ButtonInteraction
  | StringSelectMenuInteraction
  | ChannelSelectMenuInteraction
  | ChatInputCommandInteraction
  | MessageContextMenuCommandInteraction;

/** Discord's limits on an interaction token: 3 s to acknowledge, then 15 min to edit and follow up. */
const ANSWER_WINDOW_MS = 3000;
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Kept off the end of the token's life, so a call does not start just as the token dies. */
const TOKEN_MARGIN_MS = 30_000;

/**
 * Whether the interaction's token can still take a call, by its age on Discord's clock (the snowflake):
 * unacknowledged, only within the answer window; acknowledged, within the token lifetime.
 */
export function tokenUsable(
  interaction: Pick<Interaction, 'createdTimestamp'>,
  ack: Ack,
  wallClockMs: number,
): boolean {
  const age = wallClockMs - interaction.createdTimestamp;
  return ack === 'none' ? age < ANSWER_WINDOW_MS : age < TOKEN_LIFETIME_MS - TOKEN_MARGIN_MS;
}

/** One line, and nothing more is sent with that token: Discord would refuse every call the same way. */
function logDeadToken(logger: Logger, failure: DiscordFailure, ack: Ack): void {
  logger.warn(
    { discordCode: failure.code, discordStatus: failure.status, ack },
    ack === 'none'
      ? 'interaction expired or answered elsewhere before the bot acknowledged it; left unanswered'
      : 'interaction token expired before the answer was sent; left unanswered',
  );
}

/** Discord's limits on one message's uploads (8 MiB: what every server takes, boosted or not). */
const MAX_FILES = 10;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** `files` as discord.js uploads them; over Discord's limits is the caller's bug, refused before sending. */
function uploads(files: readonly OutgoingFile[]) {
  if (files.length > MAX_FILES) {
    throw new Error(`a message carries at most ${MAX_FILES} files, not ${files.length}`);
  }
  for (const file of files) {
    if (file.data.length > MAX_FILE_BYTES) {
      throw new Error(`the file ${file.name} is ${file.data.length} bytes, over ${MAX_FILE_BYTES}`);
    }
  }
  return files.map((file) => ({
    attachment: file.data,
    name: file.name,
    ...(file.description === undefined ? {} : { description: file.description }),
  }));
}

/** A handler's body as sent: what it gave, the V2 flag when it is a Components V2 body, nobody pinged. */
export function outgoing(body: MessageBody) {
  return {
    ...(body.content === undefined ? {} : { content: body.content }),
    ...(body.embeds === undefined ? {} : { embeds: [...body.embeds] }),
    ...(body.components === undefined ? {} : { components: [...body.components] }),
    ...(body.componentsV2 === true ? { flags: MessageFlags.IsComponentsV2 as number } : {}),
    ...(body.files === undefined || body.files.length === 0 ? {} : { files: uploads(body.files) }),
    allowedMentions: NO_MENTIONS,
  };
}

/** The message a component (or the component that opened a modal) is on, if any. */
function clickedMessage(interaction: Answerable): Message | undefined {
  if (interaction.isMessageComponent()) return interaction.message;
  if (interaction.isModalSubmit() && interaction.isFromMessage()) return interaction.message;
  return undefined;
}

/**
 * `body` as the edit that replaces the clicked message: the body is the whole message, so a body without
 * files takes the message's earlier files off (`attachments: []`) instead of leaving them under a new
 * page; with files, discord.js lists only the new ones, which replace the old (never both).
 */
function replacing(interaction: Answerable, body: MessageBody) {
  const shaped = outgoing(body);
  const had = (clickedMessage(interaction)?.attachments.size ?? 0) > 0;
  return shaped.files === undefined && had ? { ...shaped, attachments: [] } : shaped;
}

/** `shaped` sent privately: Ephemeral added to the flags it already has. */
function ephemeral(shaped: ReturnType<typeof outgoing>) {
  return { ...shaped, flags: (shaped.flags ?? 0) | MessageFlags.Ephemeral };
}

/** What a container keeps of one of its parts: no action row; a section's text without its button. */
function keptInContainer(component: APIComponentInContainer): APIComponentInContainer[] {
  switch (component.type) {
    case ComponentType.ActionRow:
      return [];
    case ComponentType.Section:
      return component.accessory.type === ComponentType.Button ? [...component.components] : [component];
    case ComponentType.File:
    case ComponentType.MediaGallery:
    case ComponentType.Separator:
    case ComponentType.TextDisplay:
      return [component];
  }
}

/**
 * A message's components with every interactive part taken out (action rows, at any depth; a section whose
 * accessory is a button keeps its text), for a V2 message whose buttons stopped working: emptying its
 * components, as an embed message's are, would leave nothing of the card.
 */
function withoutControls(components: readonly APIMessageTopLevelComponent[]): APIMessageTopLevelComponent[] {
  return components.flatMap((component): APIMessageTopLevelComponent[] =>
    component.type === ComponentType.Container
      ? [{ ...component, components: component.components.flatMap(keptInContainer) }]
      : keptInContainer(component),
  );
}

/** The edit that takes the controls off the clicked message, keeping a V2 card whole. */
function controlsOff(interaction: Answerable) {
  const message = clickedMessage(interaction);
  if (message?.flags.has(MessageFlags.IsComponentsV2) !== true) {
    return { components: [], allowedMentions: NO_MENTIONS };
  }
  const components = withoutControls(message.components.map((component) => component.toJSON()));
  return {
    components,
    flags: MessageFlags.IsComponentsV2 as number,
    allowedMentions: NO_MENTIONS,
  };
}

export interface Outbox {
  /** Discord's "thinking…" for a new answer, private when `ephemeral`: the acknowledgement within 3 s. */
  defer(interaction: Answerable, ephemeral: boolean): Promise<Ack>;
  /**
   * The acknowledgement of a click whose answer replaces the clicked message (for a modal submit: the
   * message whose component opened the modal).
   */
  deferUpdate(
    interaction: Exclude<Answerable, ChatInputCommandInteraction | MessageContextMenuCommandInteraction>,
  ): Promise<Ack>;
  /** Answers a click with a modal (callback 9): the only answer that interaction gets from the bot. */
  showModal(interaction: ModalOpener, modal: APIModalInteractionResponseCallbackData): Promise<void>;
  /** Sends `reply` for an interaction acknowledged as `ack`. Rejects when Discord refuses it. */
  send(interaction: Answerable, ack: Ack, reply: Reply): Promise<void>;
  /** Shows `error` to the member, ephemerally; logs what is not an expected failure. Never rejects. */
  answerError(interaction: Answerable, ack: Ack, error: unknown, logger: Logger): Promise<void>;
  /** An ephemeral one-line answer in place of running anything; a failure to send it is only logged. */
  answerBriefly(interaction: Answerable, text: string, logger: Logger): Promise<void>;
}

export function createOutbox(options: {
  readonly describeError: DescribeError;
  readonly logger: Logger;
}): Outbox {
  const { describeError } = options;

  /** Text for the member only: privately, whatever the acknowledgement was. */
  async function sendPrivately(interaction: Answerable, ack: Ack, text: string, afterFailure: boolean) {
    const payload = { content: text, embeds: [], components: [], allowedMentions: NO_MENTIONS };
    const privately = { content: text, allowedMentions: NO_MENTIONS, flags: MessageFlags.Ephemeral } as const;
    switch (ack) {
      case 'none':
        await interaction.reply({ ...payload, flags: MessageFlags.Ephemeral });
        return;
      case 'reply-ephemeral':
        // After a failed edit, a follow-up (another route) fills the deferred private reply instead.
        if (afterFailure) await interaction.followUp(privately);
        else await interaction.editReply(payload);
        return;
      case 'reply-public':
        // A public "thinking…" would turn the text public: remove it and answer privately instead.
        try {
          await interaction.deleteReply();
        } catch (deleteError) {
          if (discordFailureOf(deleteError)?.kind === 'token-dead') throw deleteError;
          options.logger.debug({ err: deleteError }, 'could not remove the deferred reply');
        }
        await interaction.followUp(privately);
        return;
      case 'update':
        await interaction.followUp(privately);
        return;
    }
  }

  return {
    async defer(interaction, ephemeral) {
      await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
      return ephemeral ? 'reply-ephemeral' : 'reply-public';
    },

    async deferUpdate(interaction) {
      await interaction.deferUpdate();
      return 'update';
    },

    async showModal(interaction, modal) {
      await interaction.showModal(modal);
    },

    async send(interaction, ack, reply) {
      switch (reply.kind) {
        case 'message':
          if (ack === 'none') {
            await interaction.reply(ephemeral(outgoing(reply.body)));
          } else if (ack === 'update') {
            await interaction.editReply(replacing(interaction, reply.body));
          } else {
            await interaction.editReply(outgoing(reply.body));
          }
          return;
        case 'expired':
          // The buttons stop working: take them off the message, then say why to the clicker only.
          if (ack === 'update') await interaction.editReply(controlsOff(interaction));
          await sendPrivately(interaction, ack, reply.text, false);
          return;
        case 'private':
          await sendPrivately(interaction, ack, reply.text, false);
          return;
      }
    },

    async answerError(interaction, ack, error, logger) {
      const failure = discordFailureOf(error);
      if (failure?.kind === 'token-dead') {
        logDeadToken(logger, failure, ack);
        return;
      }
      const { text, expected } = describeError(error, interaction.locale);
      if (failure !== undefined) {
        logger.warn(
          { err: error, discordCode: failure.code, discordStatus: failure.status, ack },
          'Discord delivery failure',
        );
        if (!tokenUsable(interaction, ack, Date.now())) {
          logger.info({ ack }, 'interaction token no longer usable: the member is not told');
          return;
        }
      } else if (expected) logger.info({ err: error }, 'interaction failed with an expected error');
      else logger.error({ err: error }, 'interaction failed');
      try {
        await sendPrivately(interaction, ack, text, failure !== undefined);
      } catch (replyError) {
        const again = discordFailureOf(replyError);
        if (again?.kind === 'token-dead') logDeadToken(logger, again, ack);
        else
          logger.warn(
            { err: replyError, discordCode: again?.code, discordStatus: again?.status },
            'could not tell the member about a failure',
          );
      }
    },

    async answerBriefly(interaction, text, logger) {
      try {
        await interaction.reply({
          content: text,
          allowedMentions: NO_MENTIONS,
          flags: MessageFlags.Ephemeral,
        });
      } catch (error) {
        const failure = discordFailureOf(error);
        if (failure?.kind === 'token-dead') logDeadToken(logger, failure, 'none');
        else logger.warn({ err: error }, 'could not answer briefly');
      }
    },
  };
}

/**
 * Sends autocomplete's `choices` (none: an empty list); a refusal is only logged (the member kept typing):
 * as a warning without a stack, or at debug level when `quiet` (an answer to an interaction turned away).
 */
export async function answerChoices(
  interaction: AutocompleteInteraction,
  choices: ApplicationCommandOptionChoiceData[],
  logger: Logger,
  quiet = false,
): Promise<void> {
  try {
    await interaction.respond(choices);
  } catch (error) {
    if (quiet) {
      logger.debug({ err: error }, 'could not answer autocomplete');
      return;
    }
    const failure = discordFailureOf(error);
    logger.warn(
      failure === undefined ? { err: error } : { discordCode: failure.code, discordStatus: failure.status },
      'could not answer autocomplete',
    );
  }
}

/**
 * A message handler's answer as a reply that pings nobody (not even the author), then the message's own
 * previews hidden if asked and the bot may (`botPermissions` in the channel has Manage Messages). Sent as
 * raw REST calls: discord.js keeps no channel to send through (server-facts.ts). Rejects when Discord
 * refuses the reply.
 */
export async function replyToMessage(
  rest: Pick<Client['rest'], 'post' | 'patch'>,
  message: Pick<Message, 'id' | 'channelId' | 'guildId' | 'flags'>,
  answer: MessageAnswer,
  botPermissions: bigint,
  logger: Logger,
): Promise<void> {
  await sendToChannel(rest, message.channelId, answer.body, {
    // Discord's default refuses a reply to a message deleted meanwhile: no card without its link.
    message_reference: { message_id: message.id },
    allowed_mentions: { ...NO_MENTIONS, replied_user: false },
  });
  if (!answer.hidePreviews || message.guildId === null) return;
  if ((botPermissions & PermissionFlagsBits.ManageMessages) === 0n) return;
  try {
    await rest.patch(Routes.channelMessage(message.channelId, message.id), {
      body: { flags: message.flags.bitfield | MessageFlags.SuppressEmbeds },
    });
  } catch (error) {
    logger.info({ err: error }, 'could not suppress the preview');
  }
}

/** The part of Discord's answer to a post that the poster reads. */
const postedMessage = z.object({ id: z.string() });

/**
 * Posts `body` to a channel with `nonce` and `enforce_nonce` (Discord makes at most one message per nonce
 * in a channel for a few minutes); resolves with the new message's id. Rejects as the REST client does.
 */
export async function postToChannel(
  rest: Pick<Client['rest'], 'post'>,
  channelId: string,
  body: MessageBody,
  nonce: string,
): Promise<string> {
  return sendToChannel(rest, channelId, body, { nonce, enforce_nonce: true });
}

/** Posts `body` to a channel with `extra` fields (a nonce, a reply's reference); resolves with its id. */
async function sendToChannel(
  rest: Pick<Client['rest'], 'post'>,
  channelId: string,
  body: MessageBody,
  extra: Readonly<Record<string, unknown>>,
): Promise<string> {
  const shaped = outgoing(body);
  // A raw REST call: the uploads go as multipart parts, each named by its index in `attachments`.
  const files = shaped.files ?? [];
  const answer = await rest.post(Routes.channelMessages(channelId), {
    body: {
      ...(shaped.content === undefined ? {} : { content: shaped.content }),
      ...(shaped.embeds === undefined ? {} : { embeds: shaped.embeds }),
      ...(shaped.components === undefined ? {} : { components: shaped.components }),
      ...(shaped.flags === undefined ? {} : { flags: shaped.flags }),
      ...(files.length === 0
        ? {}
        : {
            attachments: files.map((file, index) => ({
              id: index,
              filename: file.name,
              ...(file.description === undefined ? {} : { description: file.description }),
            })),
          }),
      allowed_mentions: shaped.allowedMentions,
      ...extra,
    },
    ...(files.length === 0
      ? {}
      : {
          files: files.map((file, index) => ({
            key: `files[${index}]`,
            name: file.name,
            data: file.attachment,
          })),
        }),
  });
  return postedMessage.parse(answer).id;
}
