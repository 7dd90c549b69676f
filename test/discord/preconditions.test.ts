/**
 * Preconditions: a command declares what it requires, and the runtime refuses before `execute` (and before
 * the features' context is built), privately, under the refusal's identifier. Unit checks of `refusalOf`,
 * then a test-only command through the real router and the local Discord.
 */
import { MessageFlags, PermissionFlagsBits, PermissionsBitField, SlashCommandBuilder } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/shared/context.js';
import { messageReply, type AnsweredEvent } from '../../src/discord/contract.js';
import { RUNTIME_ERROR_IDS } from '../../src/discord/failures.js';
import { refusalOf, requiredGuildId, type Requirements } from '../../src/discord/preconditions.js';
import type { InteractionHandle } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';
import { outcome } from '../support/waiting.js';

const STAFF: Requirements = {
  guild: true,
  memberPermissions: PermissionFlagsBits.ManageGuild,
  refusals: {
    guild: { id: 'staff.server-only', text: 'Staff work happens in a server.' },
    memberPermissions: { id: 'staff.manage-server', text: 'Only staff may.' },
  },
};

const inGuild = (permissions: bigint) => ({
  guildId: '100000000000000001',
  memberPermissions: new PermissionsBitField(permissions),
});
const inDm = { guildId: null, memberPermissions: null };

describe('refusalOf', () => {
  it('GIVEN no requirements THEN nothing is refused, in a DM too', () => {
    expect(refusalOf(inDm, undefined)).toBeUndefined();
    expect(refusalOf(inDm, {})).toBeUndefined();
  });

  it('GIVEN a DM THEN the server requirement is refused first, with the command’s own words', () => {
    const refused = refusalOf(inDm, STAFF);
    expect(refused?.id).toBe('staff.server-only');
    expect(refused?.message).toBe('Staff work happens in a server.');
  });

  it('GIVEN a member without the permission THEN refused; with it THEN admitted', () => {
    expect(refusalOf(inGuild(PermissionFlagsBits.ViewChannel), STAFF)?.id).toBe('staff.manage-server');
    expect(refusalOf(inGuild(PermissionFlagsBits.ManageGuild), STAFF)).toBeUndefined();
  });

  it('GIVEN requirements without refusals THEN the runtime’s general ones', () => {
    const bare: Requirements = { guild: true, memberPermissions: PermissionFlagsBits.ManageGuild };
    expect(refusalOf(inDm, bare)?.id).toBe(RUNTIME_ERROR_IDS.guildOnly);
    expect(refusalOf(inGuild(0n), bare)?.id).toBe(RUNTIME_ERROR_IDS.memberPermissions);
  });

  it('GIVEN a command that requires a server running outside one THEN requiredGuildId throws (a bug)', () => {
    expect(requiredGuildId({ guildId: '1' })).toBe('1');
    expect(() => requiredGuildId({ guildId: null })).toThrow(/outside/);
  });
});

function staffCommand(ephemeral: boolean): { command: Command; ran: () => number } {
  let runs = 0;
  const command: Command = {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('staff')
      .setDescription('Staff only')
      .addStringOption((option) => option.setName('what').setDescription('What').setAutocomplete(true))
      .toJSON(),
    requires: STAFF,
    ephemeral: () => ephemeral,
    async execute() {
      runs += 1;
      return messageReply({ content: 'done' });
    },
    async autocomplete() {
      runs += 1;
      return [{ name: 'secret', value: 'secret' }];
    },
  };
  return { command, ran: () => runs };
}

let h: Harness | undefined;
afterEach(async () => {
  if (h) {
    expectNoDiscordProblems(h.discord);
    await h.close();
  }
  h = undefined;
});

describe('the router checks requirements before execute', () => {
  async function start(ephemeral: boolean) {
    const staff = staffCommand(ephemeral);
    const answered: AnsweredEvent[] = [];
    h = await startHarness({
      bot: { commands: [staff.command] },
      observers: { runtime: { answered: (event) => answered.push(event) } },
    });
    return { h, staff, answered };
  }

  it.each([true, false])(
    'GIVEN a DM and a member without Manage Server (ephemeral command: %s) THEN refused privately, execute never runs, the outcome carries the identifier',
    async (ephemeral) => {
      const { h, staff, answered } = await start(ephemeral);
      // A public "thinking…" is removed and the refusal follows up privately.
      const answer = async (handle: InteractionHandle) =>
        ephemeral ? handle.finalReply() : (await outcome(h.discord, handle)).message;
      const dm = await answer(h.discord.sendCommand({ name: 'staff', channel: 'dm' }));
      expect(dm.content).toBe('Staff work happens in a server.');
      expect(dm.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);

      const member = await answer(
        h.discord.sendCommand({ name: 'staff', channel: 'plain', permissions: '0' }),
      );
      expect(member.content).toBe('Only staff may.');
      expect(member.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
      expect(staff.ran()).toBe(0);

      const admin = await h.discord
        .sendCommand({ name: 'staff', channel: 'plain', userId: h.discord.guild.ownerId })
        .finalReply();
      expect(admin.content).toBe('done');
      expect(staff.ran()).toBe(1);

      await h.discord.waitFor(() => (answered.length >= 3 ? true : undefined));
      expect(answered.map((event) => [event.outcome, event.errorId])).toEqual([
        ['user_error', 'staff.server-only'],
        ['user_error', 'staff.manage-server'],
        ['ok', undefined],
      ]);
    },
  );

  it('GIVEN a member the command would refuse THEN autocomplete offers nothing without running', async () => {
    const { h, staff } = await start(true);
    const refused = await h.discord
      .sendAutocomplete({
        name: 'staff',
        channel: 'plain',
        permissions: '0',
        focused: 'what',
        options: { what: '' },
      })
      .autocompleteChoices();
    expect(refused).toEqual([]);
    expect(staff.ran()).toBe(0);
    const owner = await h.discord
      .sendAutocomplete({
        name: 'staff',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
        focused: 'what',
        options: { what: '' },
      })
      .autocompleteChoices();
    expect(owner).toEqual([{ name: 'secret', value: 'secret' }]);
  });
});
