/**
 * Self-tests of the local Discord: a real, unmodified discord.js Client talks to it over loopback.
 */
import { once } from 'node:events';
import { ChannelType, Client, Events, GatewayIntentBits, type Interaction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './discord/index.js';

const NO_MENTIONS = { parse: [] as [] };

let fake: FakeDiscord | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.destroy();
  client = undefined;
  await fake?.close();
  fake = undefined;
});

async function start(
  options: Parameters<typeof startFakeDiscord>[0] = {},
  intents: number[] = [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.MessageContent,
  ],
): Promise<{ fake: FakeDiscord; client: Client }> {
  fake = await startFakeDiscord(options);
  client = new Client({ intents, rest: { api: fake.apiUrl }, allowedMentions: NO_MENTIONS });
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  return { fake, client };
}

function onInteraction(c: Client, handler: (interaction: Interaction) => Promise<void>): void {
  c.on(Events.InteractionCreate, (interaction) => {
    handler(interaction).catch(() => {
      // The test asserts on what the fake recorded; refused calls show up there.
    });
  });
}

describe('fake Discord gateway', () => {
  it('GIVEN a discord.js client WHEN it logs in THEN READY and the guild arrive with channels, threads and nsfw flags', async () => {
    const { fake, client } = await start();
    await fake.whenReady();
    expect(client.user?.id).toBe(fake.botUserId);
    expect(client.application?.id).toBe(fake.applicationId);
    const guild = client.guilds.cache.get(fake.guild.id);
    expect(guild?.name).toBe('Fake Guild');
    const plain = guild?.channels.cache.get(fake.guild.channels.plain);
    const restricted = guild?.channels.cache.get(fake.guild.channels.ageRestricted);
    expect(plain?.type).toBe(ChannelType.GuildText);
    expect(plain && 'nsfw' in plain ? plain.nsfw : undefined).toBe(false);
    expect(restricted && 'nsfw' in restricted ? restricted.nsfw : undefined).toBe(true);
    const thread = guild?.channels.cache.get(fake.guild.channels.threadInAgeRestricted);
    expect(thread?.isThread()).toBe(true);
    expect(thread?.isThread() ? thread.parentId : undefined).toBe(fake.guild.channels.ageRestricted);
    expect(guild?.members.me?.permissions.has('ManageMessages')).toBe(true);
    expect(fake.identifies).toHaveLength(1);
    expect(fake.requests.map((r) => `${r.method} ${r.route}`)).toContain('GET /gateway/bot');
    expect(fake.violations).toEqual([]);
  });
});

describe('fake Discord interactions', () => {
  it('GIVEN a slash command WHEN the bot defers then edits THEN both are recorded with latency and the final reply', async () => {
    const { fake, client } = await start();
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      const id = interaction.options.getInteger('id', true);
      await interaction.editReply({
        content: `image ${id}`,
        embeds: [{ title: 'Image', url: 'https://example.org/1' }],
      });
    });
    const handle = fake.sendCommand({ name: 'image', options: { id: 42 }, channel: 'plain' });
    const ack = await handle.acknowledged;
    expect(ack.type).toBe(5);
    expect(ack.ms).toBeLessThan(3000);
    const reply = await handle.finalReply();
    expect(reply.content).toBe('image 42');
    expect(reply.embeds[0]).toMatchObject({ title: 'Image', url: 'https://example.org/1', type: 'rich' });
    expect(reply.allowedMentions).toEqual(NO_MENTIONS);
    expect(handle.responses.map((r) => [r.kind, r.status])).toEqual([
      ['callback', 204],
      ['edit-original', 200],
    ]);
    expect(
      fake.requests.some(
        (r) => r.route === '/webhooks/:app/:token/messages/:message' && r.method === 'PATCH',
      ),
    ).toBe(true);
    expect(fake.channelMessages('plain').map((m) => m.content)).toEqual(['image 42']);
    expect(fake.violations).toEqual([]);
    expect(fake.mentionRisks).toEqual([]);
  });
});
