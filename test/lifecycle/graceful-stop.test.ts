/**
 * Bot.stop with a grace period, in process: work in flight finishes (or the grace ends, bounded), and new
 * interactions meanwhile are turned away politely. A test-only command whose handler waits for the test
 * stands in for slow work.
 */
import { SlashCommandBuilder } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Command } from '../../commands/shared/context.js';
import { messageReply } from '../../src/discord/contract.js';
import { RESTARTING_TEXT } from '../../src/discord/router.js';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

interface Gate {
  readonly started: Promise<void>;
  release(): void;
}

function slowCommand(): { command: Command; gate: Gate } {
  let markStarted = () => undefined as void;
  let release = () => undefined as void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const command: Command = {
    kind: 'chat',
    data: new SlashCommandBuilder().setName('slow').setDescription('Waits for the test').toJSON(),
    async execute() {
      markStarted();
      await released;
      return messageReply({ content: 'done' });
    },
    async autocomplete() {
      return [{ name: 'choice', value: 'choice' }];
    },
  };
  return { command, gate: { started, release } };
}

let h: Harness | undefined;
let gate: Gate | undefined;
afterEach(async () => {
  gate?.release();
  if (h) {
    expectNoDiscordProblems(h.discord);
    await h.close();
  }
  h = undefined;
  gate = undefined;
});

describe('Bot.stop with a grace period', () => {
  it('GIVEN work that finishes within the grace THEN stop waits for its reply, and new interactions meanwhile are turned away', async () => {
    const slow = slowCommand();
    gate = slow.gate;
    h = await startHarness({ bot: { commands: [slow.command] } });
    const running = h.discord.sendCommand({ name: 'slow', channel: 'plain' });
    await slow.gate.started;
    expect(h.bot.inFlight).toBe(1);
    const stopping = h.bot.stop({ graceMs: 10_000 });

    const late = await h.discord.sendCommand({ name: 'slow', channel: 'plain' }).finalReply();
    expect(late.content).toBe(RESTARTING_TEXT);
    const choices = await h.discord
      .sendAutocomplete({ name: 'slow', channel: 'plain' })
      .autocompleteChoices();
    expect(choices).toEqual([]);

    slow.gate.release();
    expect(await stopping).toEqual({ unfinished: 0 });
    expect((await running.finalReply()).content).toBe('done');
    expect(h.logLines().some((line) => line['msg'] === 'finishing work in flight')).toBe(true);
  });

  it('GIVEN work that outlasts the grace THEN stop gives up after the grace, says how much was left, and disconnects', async () => {
    const slow = slowCommand();
    gate = slow.gate;
    h = await startHarness({ bot: { commands: [slow.command] } });
    h.discord.sendCommand({ name: 'slow', channel: 'plain' });
    await slow.gate.started;
    const began = Date.now();
    expect(await h.bot.stop({ graceMs: 150 })).toEqual({ unfinished: 1 });
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(5_000);
    const warning = h
      .logLines()
      .find((line) => line['msg'] === 'work still in flight when the grace period ended');
    expect(warning?.['unfinished']).toBe(1);
  });

  it('GIVEN a board request that outlasts the grace THEN the shutdown main runs (stop, then a forced registry close) ends at once instead of waiting for the request timeout', async () => {
    h = await startHarness({ registry: { transport: { attemptTimeoutMs: 60_000, deadlineMs: 120_000 } } });
    h.booru.inject({ fault: { kind: 'hang' }, path: '/api/v1/json/images/' });
    h.discord.sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain' });
    await h.discord.waitFor(
      () => (h?.booru.requests.some((r) => r.path.startsWith('/api/v1/json/images/')) ? true : undefined),
      10_000,
    );
    expect(await h.bot.stop({ graceMs: 100 })).toEqual({ unfinished: 1 });
    const began = Date.now();
    await h.registry.close({ force: true });
    // The command's board call fails at once, so nothing is left running behind the shutdown.
    await h.discord.waitFor(() => (h?.bot.inFlight === 0 ? true : undefined), 2_000);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(h.booru.requests.filter((r) => r.path.startsWith('/api/v1/json/images/'))).toHaveLength(1);
  });

  it('GIVEN a stopped bot started again THEN it takes work again', async () => {
    const slow = slowCommand();
    gate = slow.gate;
    slow.gate.release();
    h = await startHarness({ bot: { commands: [slow.command] } });
    await h.bot.stop();
    await h.bot.start();
    expect((await h.discord.sendCommand({ name: 'slow', channel: 'plain' }).finalReply()).content).toBe(
      'done',
    );
  });
});
