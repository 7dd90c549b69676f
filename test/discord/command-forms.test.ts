/**
 * Commands whose first answer is a form (contract.ts `FormOpener`), through the real runtime and an
 * unmodified discord.js client against the local Discord: a slash command and a message menu that open a
 * modal before anything is deferred (Discord takes a modal only as the first answer), a form that refuses
 * with a sentence, one that declines (the command is deferred and runs), one that fails and one that comes
 * too late (both deferred and run, so the member still gets an answer within Discord's 3 s).
 */
import {
  ApplicationCommandType,
  ComponentType,
  ContextMenuCommandBuilder,
  MessageFlags,
  SlashCommandBuilder,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/shared/context.js';
import { messageReply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

const FORM_TIMEOUT_MS = 300;

function noteForm(customId: string): APIModalInteractionResponseCallbackData {
  return {
    custom_id: customId,
    title: 'A note',
    components: [
      {
        type: ComponentType.Label,
        label: 'Text',
        component: { type: ComponentType.TextInput, custom_id: 'text', style: TextInputStyle.Short },
      },
    ],
  };
}

const runs = { execute: 0, forms: 0, lateSettled: 0 };
let releaseLate: () => void = () => undefined;

const noteCommand: Command = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('note')
    .setDescription('Takes a note')
    .addStringOption((o) =>
      o
        .setName('how')
        .setDescription('How the form answers')
        .addChoices(
          { name: 'form', value: 'form' },
          { name: 'none', value: 'none' },
          { name: 'refuse', value: 'refuse' },
          { name: 'fail', value: 'fail' },
          { name: 'late', value: 'late' },
        ),
    )
    .toJSON(),
  form: async (interaction, context) => {
    runs.forms += 1;
    // The context is the features' own, built before the form was asked for.
    expect(context.view).toBeDefined();
    const how = interaction.options.getString('how') ?? 'form';
    if (how === 'refuse') throw new UserFacingError('board.bad-query', 'Not here, not now.');
    if (how === 'fail') throw new Error('the store is down');
    if (how === 'late') {
      await new Promise<void>((resolve) => {
        releaseLate = resolve;
      });
      runs.lateSettled += 1;
      return noteForm('note:text');
    }
    return how === 'none' ? undefined : noteForm('note:text');
  },
  execute: async (interaction) => {
    runs.execute += 1;
    return messageReply({ content: `ran without a form (${interaction.options.getString('how') ?? '-'})` });
  },
  modals: {
    'note:text': {
      defer: () => 'ephemeral',
      run: async (interaction) =>
        messageReply({ content: `noted: ${interaction.fields.getTextInputValue('text')}` }),
    },
  },
};

const quoteCommand: Command = {
  kind: 'message',
  data: new ContextMenuCommandBuilder().setName('Quote it').setType(ApplicationCommandType.Message).toJSON(),
  form: async (interaction) => (interaction.targetMessage.content === '' ? undefined : noteForm('note:text')),
  execute: async () => messageReply({ content: 'nothing to quote' }),
};

const adminCommand: Command = {
  kind: 'chat',
  data: new SlashCommandBuilder().setName('adminnote').setDescription('Admins only').toJSON(),
  requires: { guild: true, memberPermissions: 0x20n },
  form: async () => {
    runs.forms += 1;
    return noteForm('note:text');
  },
  execute: async () => messageReply({ content: 'admin ran' }),
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    bot: { commands: [noteCommand, quoteCommand, adminCommand], formTimeoutMs: FORM_TIMEOUT_MS },
  });
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});

describe('a command whose first answer is a form', () => {
  it('GIVEN /note THEN the modal is the first answer (callback 9), execute does not run, and the submit reaches the modal handler', async () => {
    const before = runs.execute;
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain' });
    expect((await command.acknowledged).type).toBe(9);
    const reply = await h.discord.submitModal({ opener: command, values: { text: 'hello' } }).finalReply();
    expect(reply.content).toBe('noted: hello');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(runs.execute).toBe(before);
  });

  it('GIVEN a form that declines THEN the command is deferred and execute answers', async () => {
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain', options: { how: 'none' } });
    expect((await command.acknowledged).type).toBe(5);
    expect((await command.finalReply()).content).toBe('ran without a form (none)');
  });

  it('GIVEN a form that refuses with a sentence THEN that sentence is the private answer and execute does not run', async () => {
    const before = runs.execute;
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain', options: { how: 'refuse' } });
    const reply = await command.finalReply();
    expect(reply.content).toBe('Not here, not now.');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(runs.execute).toBe(before);
  });

  it('GIVEN a form that fails unexpectedly THEN the command is deferred and execute still answers', async () => {
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain', options: { how: 'fail' } });
    expect((await command.acknowledged).type).toBe(5);
    expect((await command.finalReply()).content).toBe('ran without a form (fail)');
  });

  it('GIVEN a form that comes too late THEN the command is deferred in time and execute answers; the late modal is never shown', async () => {
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain', options: { how: 'late' } });
    const ack = await command.acknowledged;
    expect(ack.type).toBe(5);
    expect((await command.finalReply()).content).toBe('ran without a form (late)');
    releaseLate();
    await h.discord.waitFor(() => (runs.lateSettled > 0 ? true : undefined));
    expect(command.responses.filter((r) => r.kind === 'callback')).toHaveLength(1);
  });

  it('GIVEN a message menu with a form THEN the modal opens from the menu; GIVEN a message it declines THEN execute answers', async () => {
    const menu = h.discord.sendMessageCommand({
      name: 'Quote it',
      channel: 'plain',
      targetMessage: { content: 'words' },
    });
    expect((await menu.acknowledged).type).toBe(9);
    const reply = await h.discord.submitModal({ opener: menu, values: { text: 'quoted' } }).finalReply();
    expect(reply.content).toBe('noted: quoted');
    const empty = h.discord.sendMessageCommand({
      name: 'Quote it',
      channel: 'plain',
      targetMessage: { content: '', embeds: [{ title: 'only an embed' }] },
    });
    expect((await empty.finalReply()).content).toBe('nothing to quote');
  });

  it('GIVEN a member the command does not serve THEN no form is asked for and the refusal is the answer', async () => {
    const before = runs.forms;
    const command = h.discord.sendCommand({ name: 'adminnote', channel: 'plain' });
    // Deferred publicly as the command asks; the refusal then replaces it privately.
    const reply = await h.discord.waitFor(() => command.followUps()[0]);
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(reply.content).not.toBe('admin ran');
    expect(runs.forms).toBe(before);
  });

  // Last in the file: it moves the bot's clock for good.
  it('GIVEN an interaction already old when it arrives (the bot 2 s behind) THEN no form is asked for: deferred in time and execute answers', async () => {
    const before = runs.forms;
    h.botClock.advance(2_000);
    const command = h.discord.sendCommand({ name: 'note', channel: 'plain' });
    expect((await command.acknowledged).type).toBe(5);
    expect((await command.finalReply()).content).toBe('ran without a form (-)');
    expect(runs.forms).toBe(before);
  });
});
