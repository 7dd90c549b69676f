/**
 * `philomena_bot_rule_decisions_total{decision,layer}` counts what the rules in layers did, by layer, in
 * the real entry point (src/main.ts as a process with METRICS_PORT: the in-process harness wires no
 * metrics for the rules), against the local Discord and board: one /image hidden by each layer (the floor
 * under the Everything filter in an age-restricted channel, the server's, the channel's and the member's
 * own hidden tags) and one spoilered by the server's list.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type ChannelTarget, type FakeDiscord } from '../fakes/discord/index.js';
import { FILTER_IDS, IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { startBotProcess, type BotProcess } from '../lifecycle/bot-process.js';

let discord: FakeDiscord;
let booru: FakePhilomena;
let bot: BotProcess;
let port: number;

/** A port free right now on 127.0.0.1 (the child binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const found = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(found));
    });
  });
}

beforeAll(async () => {
  discord = await startFakeDiscord();
  booru = await startFakePhilomena();
  port = await freePort();
  bot = await startBotProcess({
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    BOORU_URL: booru.url,
    BOORU_FILTER_ID: String(FILTER_IDS.everything),
    STORE_URL: 'memory://',
    LOG_LEVEL: 'info',
    COMMAND_RATE_LIMIT: 'off',
    METRICS_PORT: String(port),
  });
  await bot.waitForLog((line) => line['msg'] === 'bot ready', 30_000);
}, 60_000);
afterAll(async () => {
  await bot.dispose();
  await discord.close();
  await booru.close();
});

/** The value of the rule decisions counter for these labels (0 when not yet seen). */
async function decisions(decision: string, layer: string): Promise<number> {
  const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = body
    .split('\n')
    .find(
      (l) =>
        l.startsWith('philomena_bot_rule_decisions_total{') &&
        l.includes(`decision="${decision}"`) &&
        l.includes(`layer="${layer}"`),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const image = (id: number, channel: ChannelTarget) =>
  discord.sendCommand({ name: 'image', options: { id: String(id) }, channel }).finalReply();

function settingsTags(action: 'hide' | 'spoiler', tags: string, channel?: string) {
  return discord
    .sendCommand({
      name: 'settings',
      subcommandGroup: 'tags',
      subcommand: action,
      options: { tags, ...(channel === undefined ? {} : { channel }) },
      channel: 'plain',
      userId: discord.guild.ownerId,
    })
    .finalReply();
}

describe('philomena_bot_rule_decisions_total', () => {
  it(
    'GIVEN one image hidden by each layer and one spoilered by the server THEN each is counted once under its layer',
    { timeout: 60_000 },
    async () => {
      const add = (tag: string) => booru.addImage({ tags: ['safe', 'artist:rules artist', tag] });
      const server = add('zq metric server');
      const channel = add('zq metric channel');
      const member = add('zq metric member');
      const spoilered = add('zq metric spoiler');
      expect((await settingsTags('hide', 'zq metric server')).content).toContain('zq metric server');
      expect((await settingsTags('hide', 'zq metric channel', 'plain')).content).toContain(
        'zq metric channel',
      );
      expect((await settingsTags('spoiler', 'zq metric spoiler')).content).toContain('zq metric spoiler');
      const own = await discord
        .sendCommand({
          name: 'me',
          subcommand: 'hide',
          options: { tags: 'zq metric member' },
          channel: 'plain',
        })
        .finalReply();
      expect(own.content).toContain('zq metric member');

      for (const layer of ['floor', 'server', 'channel', 'member'])
        expect(await decisions('hidden', layer)).toBe(0);
      await image(IDS.floorYoung, 'ageRestricted');
      await image(server, 'plain');
      await image(channel, 'plain');
      await image(member, 'plain');
      await image(spoilered, 'plain');
      expect(await decisions('hidden', 'floor')).toBe(1);
      expect(await decisions('hidden', 'server')).toBe(1);
      expect(await decisions('hidden', 'channel')).toBe(1);
      expect(await decisions('hidden', 'member')).toBe(1);
      expect(await decisions('spoilered', 'server')).toBe(1);
      // Another member's /image of the member's image: nothing hides it for them, nothing is counted.
      await discord
        .sendCommand({
          name: 'image',
          options: { id: String(member) },
          channel: 'plain',
          userId: discord.guild.otherMemberId,
        })
        .finalReply();
      expect(await decisions('hidden', 'member')).toBe(1);
    },
  );
});
