/**
 * Modals, channel selects and files through the real runtime and an unmodified discord.js client against
 * the local Discord: a toy "panel" command whose buttons open modals (callback 9), whose modal submits
 * reach their handlers by custom_id, whose channel select hands over channel ids, and whose answers carry
 * files the local Discord serves on its CDN. The local Discord's own checks of modals (the limits, what
 * a member can submit) are here too.
 */
import {
  ButtonStyle,
  ChannelType,
  ComponentType,
  MessageFlags,
  SlashCommandBuilder,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/shared/context.js';
import { messageReply, type AnsweredEvent, type MessageBody } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { outgoing } from '../../src/discord/outbox.js';
import type { RecordedMessage, Violation } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

const EXPORT = Buffer.from(JSON.stringify({ site: 'derpibooru', filter: 100073 }, null, 2), 'utf8');

const renameModal = (
  customId: string,
  title = 'Rename the panel',
): { readonly modal: APIModalInteractionResponseCallbackData } => ({
  modal: {
    custom_id: customId,
    title,
    components: [
      { type: ComponentType.TextDisplay, content: 'Two to twenty characters.' },
      {
        type: ComponentType.Label,
        label: 'Name',
        description: 'What the panel is called',
        component: {
          type: ComponentType.TextInput,
          custom_id: 'name',
          style: TextInputStyle.Short,
          min_length: 2,
          max_length: 20,
          required: true,
        },
      },
      {
        type: ComponentType.Label,
        label: 'Note',
        component: {
          type: ComponentType.TextInput,
          custom_id: 'note',
          style: TextInputStyle.Paragraph,
          required: false,
          value: 'hi',
        },
      },
    ],
  },
});

function panel(name: string, files?: MessageBody['files']): MessageBody {
  return {
    content: `Panel: ${name}`,
    ...(files === undefined ? {} : { files }),
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Primary,
            custom_id: 'panel:rename',
            label: 'Rename',
          },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            custom_id: 'panel:ghost',
            label: 'Ghost',
          },
          { type: ComponentType.Button, style: ButtonStyle.Secondary, custom_id: 'panel:bad', label: 'Bad' },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            custom_id: 'panel:export',
            label: 'Export',
          },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            custom_id: 'panel:attach',
            label: 'Attach here',
          },
        ],
      },
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            custom_id: 'panel:crowded',
            label: 'Crowded',
          },
        ],
      },
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.ChannelSelect,
            custom_id: 'panel:channel',
            channel_types: [ChannelType.GuildText],
            min_values: 1,
            max_values: 2,
          },
        ],
      },
    ],
  };
}

const runs = { buttons: 0 };
const never = async () => {
  runs.buttons += 1;
  return messageReply({ content: 'a button with a modal must not run' });
};

const panelCommand: Command = {
  kind: 'chat',
  data: new SlashCommandBuilder().setName('panel').setDescription('A test panel').toJSON(),
  ephemeral: () => true,
  execute: async () => messageReply(panel('first')),
  buttons: {
    'panel:rename': { defer: () => renameModal('panel:name'), run: never },
    'panel:ghost': { defer: () => renameModal('gone:away'), run: never },
    'panel:bad': { defer: () => renameModal('panel:name', 'x'.repeat(46)), run: never },
    'panel:crowded': {
      defer: () => {
        const { modal } = renameModal('panel:name');
        const text = { type: ComponentType.TextDisplay, content: 'More words.' } as const;
        return { modal: { ...modal, components: [...modal.components, text, text, text] } };
      },
      run: never,
    },
    'panel:export': {
      defer: () => 'ephemeral',
      run: async () =>
        messageReply({
          content: 'Your settings',
          files: [{ name: 'settings.json', data: EXPORT, description: 'The server settings' }],
        }),
    },
    'panel:attach': {
      defer: () => 'update',
      run: async () => messageReply(panel('with file', [{ name: 'settings.json', data: EXPORT }])),
    },
  },
  selects: {
    'panel:channel': {
      defer: () => 'ephemeral',
      run: async (interaction) =>
        messageReply({
          content: `Picked ${interaction.values.join(',')} (${interaction.isChannelSelectMenu() ? interaction.channels.map((c) => c?.type).join(',') : 'no channels'})`,
        }),
    },
  },
  modals: {
    'panel:name': {
      defer: () => 'update',
      run: async (interaction) => {
        const name = interaction.fields.getTextInputValue('name');
        if (name === 'taken') throw new UserFacingError('board.bad-query', 'That name is taken.');
        const note = interaction.fields.getTextInputValue('note');
        return messageReply(panel(`${name} (${note})`));
      },
    },
  },
};

let h: Harness;
const answered: AnsweredEvent[] = [];
const isBadModal = (v: Violation): boolean =>
  (v.kind === 'schema' || v.kind === 'limit') && (v.route ?? '').endsWith('/callback');

beforeAll(async () => {
  h = await startHarness({
    bot: { commands: [panelCommand] },
    observers: { runtime: { answered: (event) => answered.push(event) } },
  });
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord, [isBadModal]);
  await h.close();
});

async function openPanel(): Promise<RecordedMessage> {
  return h.discord.sendCommand({ name: 'panel', channel: 'plain' }).finalReply();
}

describe('a button that opens a modal', () => {
  it('GIVEN a click on Rename THEN the modal is shown (callback 9) and the button handler does not run; GIVEN it is submitted THEN the modal handler reads the typed values and updates the panel', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:rename' });
    expect((await click.acknowledged).type).toBe(9);
    const submit = h.discord.submitModal({ opener: click, values: { name: 'Cloudy' } });
    const updated = await submit.finalReply();
    expect(updated.id).toBe(message.id);
    expect(updated.content).toBe('Panel: Cloudy (hi)');
    expect(submit.responses[0]?.callbackType).toBe(6);
    expect(runs.buttons).toBe(0);
    await h.discord.waitFor(() => answered.find((e) => e.kind === 'modal' && e.command === 'panel:name'));
  });

  it('GIVEN the modal handler throws a UserFacingError THEN the member reads it privately and the panel stays', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:rename' });
    await click.acknowledged;
    const submit = h.discord.submitModal({ opener: click, values: { name: 'taken' } });
    const note = await h.discord.waitFor(() => submit.followUps()[0]);
    expect(note.content).toBe('That name is taken.');
    expect(note.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(h.discord.channelMessages('plain').find((m) => m.id === message.id)?.content).toBe('Panel: first');
  });

  it('GIVEN a modal whose custom_id no handler knows THEN the submit is answered privately that the form no longer works', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:ghost' });
    await click.acknowledged;
    const reply = await h.discord.submitModal({ opener: click, values: { name: 'Cloudy' } }).finalReply();
    expect(reply.content).toBe('This form no longer works.');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
  });

  it('GIVEN a modal over Discord’s limits (a 46-character title) THEN the local Discord refuses it and the member is told privately', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:bad' });
    const reply = await click.finalReply();
    expect(click.responses[0]).toMatchObject({ kind: 'callback', callbackType: 9, status: 400 });
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(h.discord.violations.filter(isBadModal).map((v) => v.kind)).toEqual(['schema']);
    expect(() => h.discord.submitModal({ opener: click, values: { name: 'Cloudy' } })).toThrow(
      /showed no modal/,
    );
  });

  it('GIVEN a modal of six top-level components (the schema takes 40, Discord 5) THEN the local Discord refuses it as over the limit', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:crowded' });
    await click.finalReply();
    expect(click.responses[0]).toMatchObject({ callbackType: 9, status: 400 });
    const refused = h.discord.violations.filter(isBadModal).at(-1);
    expect(refused).toMatchObject({ kind: 'limit', code: 50035 });
    expect(JSON.stringify(refused?.details)).toContain('Must be between 1 and 5 in length.');
  });
});

describe('what the local Discord lets a member submit', () => {
  it('GIVEN values the client would not send THEN submitModal refuses them', async () => {
    const message = await openPanel();
    const click = h.discord.sendButton({ message, customId: 'panel:rename' });
    await click.acknowledged;
    expect(() => h.discord.submitModal({ opener: click, values: {} })).toThrow(/name .* is required/);
    expect(() => h.discord.submitModal({ opener: click, values: { name: 'x' } })).toThrow(/at least 2/);
    expect(() => h.discord.submitModal({ opener: click, values: { name: 'y'.repeat(21) } })).toThrow(
      /at most 20/,
    );
    expect(() => h.discord.submitModal({ opener: click, values: { name: 'ok', color: 'red' } })).toThrow(
      /no field color/,
    );
    // Never shown: a click answered otherwise.
    const exported = h.discord.sendButton({ message, customId: 'panel:export' });
    await exported.finalReply();
    expect(() => h.discord.submitModal({ opener: exported })).toThrow(/showed no modal/);
  });
});

describe('a channel select', () => {
  it('GIVEN a member picks a text channel THEN the handler reads its id and type', async () => {
    const message = await openPanel();
    const { plain, spoiler } = h.discord.guild.channels;
    const reply = await h.discord
      .sendChannelSelect({ message, customId: 'panel:channel', values: [plain, spoiler] })
      .finalReply();
    expect(reply.content).toBe(`Picked ${plain},${spoiler} (0,0)`);
  });

  it('GIVEN a channel of a type the select does not take, or too many THEN the local Discord refuses the pick', async () => {
    const message = await openPanel();
    const { voice, plain, spoiler, ageRestricted } = h.discord.guild.channels;
    expect(() =>
      h.discord.sendChannelSelect({ message, customId: 'panel:channel', values: [voice] }),
    ).toThrow(/takes channel types 0/);
    expect(() =>
      h.discord.sendChannelSelect({
        message,
        customId: 'panel:channel',
        values: [plain, spoiler, ageRestricted],
      }),
    ).toThrow(/takes 1..2 values/);
  });
});

describe('files on answers', () => {
  it('GIVEN an answer with a file THEN the local Discord serves the same bytes on its CDN, with its name and description', async () => {
    const message = await openPanel();
    const reply = await h.discord.sendButton({ message, customId: 'panel:export' }).finalReply();
    expect(reply.content).toBe('Your settings');
    expect(reply.attachments).toHaveLength(1);
    const attachment = reply.attachments[0] ?? {};
    expect(attachment).toMatchObject({ filename: 'settings.json', description: 'The server settings' });
    const served = await fetch(String(attachment['url']));
    expect(Buffer.from(await served.arrayBuffer()).equals(EXPORT)).toBe(true);
  });

  it('GIVEN a page with a file replaced by a page without THEN the file goes with the page it belonged to', async () => {
    const message = await openPanel();
    const attached = await h.discord.sendButton({ message, customId: 'panel:attach' }).finalReply();
    expect(attached.attachments).toHaveLength(1);
    const again = await h.discord.sendButton({ message, customId: 'panel:attach' }).finalReply();
    // Replaced, not stacked.
    expect(again.attachments).toHaveLength(1);
    const click = h.discord.sendButton({ message, customId: 'panel:rename' });
    await click.acknowledged;
    const renamed = await h.discord.submitModal({ opener: click, values: { name: 'Plain' } }).finalReply();
    expect(renamed.content).toBe('Panel: Plain (hi)');
    expect(renamed.attachments).toEqual([]);
  });

  it('GIVEN more than 10 files or one over 8 MiB THEN the body is refused before anything is sent (a bug)', () => {
    const file = { name: 'a.txt', data: Buffer.from('a') };
    expect(() => outgoing({ content: 'x', files: Array.from({ length: 11 }, () => file) })).toThrow(
      /at most 10/,
    );
    const big = { name: 'big.bin', data: Buffer.alloc(8 * 1024 * 1024 + 1) };
    expect(() => outgoing({ content: 'x', files: [big] })).toThrow(/over/);
    expect(outgoing({ content: 'x', files: [file] }).files).toHaveLength(1);
  });
});
