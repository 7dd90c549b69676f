/**
 * Spoiler channels in the local Discord (channel flag IS_SPOILER_CHANNEL, 1 << 21, July 2026): the seeded
 * `spoiler` channel and its thread, the flag in everything that describes a channel (GUILD_CREATE,
 * GET /channels/:id, an interaction's `channel`, the partial one of a server the bot is not in,
 * CHANNEL_UPDATE), `updateChannel` to set it, and Discord's refusals: the flag together with age
 * restriction, either way round, and on a thread (a thread follows its parent). An unmodified discord.js
 * client talks to it over 127.0.0.1.
 */
import { once } from 'node:events';
import {
  ChannelFlags,
  ChannelType,
  Client,
  Events,
  GatewayIntentBits,
  REST,
  Routes,
  type Channel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { IS_SPOILER_CHANNEL_FLAG, startFakeDiscord, type FakeDiscord } from './index.js';

let fake: FakeDiscord | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.destroy();
  await fake?.close();
  client = undefined;
  fake = undefined;
});

async function started(): Promise<FakeDiscord> {
  fake = await startFakeDiscord();
  return fake;
}

async function loggedIn(f: FakeDiscord): Promise<Client> {
  client = new Client({
    intents: [GatewayIntentBits.Guilds],
    rest: { api: f.apiUrl },
    allowedMentions: { parse: [] },
  });
  const ready = once(client, Events.ClientReady);
  await client.login(f.token);
  await ready;
  return client;
}

async function get(f: FakeDiscord, id: string): Promise<Record<string, unknown>> {
  const rest = new REST({ api: f.apiUrl }).setToken(f.token);
  return (await rest.get(Routes.channel(id))) as Record<string, unknown>;
}

/** A channel's flags as discord.js holds them (its bit field), 0 when it has none. */
function flagsOf(channel: Channel | null | undefined): number {
  return channel !== null && channel !== undefined && 'flags' in channel ? (channel.flags?.bitfield ?? 0) : 0;
}

describe('fake Discord: spoiler channels', () => {
  it('GIVEN the flag THEN it is the value discord-api-types names IsSpoilerChannel', () => {
    expect(IS_SPOILER_CHANNEL_FLAG).toBe(1 << 21);
    expect(IS_SPOILER_CHANNEL_FLAG).toBe(ChannelFlags.IsSpoilerChannel);
  });

  it('GIVEN the seeded world THEN GET /channels/:id gives the spoiler channel its flag, not age-restricted, and its thread the parent', async () => {
    const f = await started();
    const { spoiler, threadInSpoiler, plain, ageRestricted } = f.guild.channels;
    expect(await get(f, spoiler)).toMatchObject({
      type: ChannelType.GuildText,
      nsfw: false,
      flags: IS_SPOILER_CHANNEL_FLAG,
    });
    expect(await get(f, threadInSpoiler)).toMatchObject({
      type: ChannelType.PublicThread,
      parent_id: spoiler,
      flags: 0,
    });
    for (const other of [plain, ageRestricted]) expect((await get(f, other))['flags']).toBe(0);
  });

  it('GIVEN a discord.js client THEN GUILD_CREATE gave it the flag on the channel and none on the thread', async () => {
    const f = await started();
    const c = await loggedIn(f);
    const spoiler = c.channels.cache.get(f.guild.channels.spoiler);
    expect(flagsOf(spoiler) & IS_SPOILER_CHANNEL_FLAG).toBe(IS_SPOILER_CHANNEL_FLAG);
    const thread = c.channels.cache.get(f.guild.channels.threadInSpoiler);
    expect(thread?.isThread() === true ? thread.parentId : undefined).toBe(f.guild.channels.spoiler);
    expect(flagsOf(c.channels.cache.get(f.guild.channels.plain))).toBe(0);
  });

  it('GIVEN an interaction in the spoiler channel, in a server the bot is in and in one it is not in THEN its channel carries the flag', async () => {
    const f = await started();
    const own = f.sendCommand({ name: 'image', options: { id: '1' }, channel: 'spoiler' });
    expect(own.payload['channel']).toMatchObject({
      id: f.guild.channels.spoiler,
      flags: IS_SPOILER_CHANNEL_FLAG,
    });
    const foreign = f.sendCommand({
      name: 'image',
      options: { id: '1' },
      channel: f.foreignGuild.channels.spoiler,
      userId: f.foreignGuild.memberId,
    });
    expect(foreign.payload['channel']).toMatchObject({ flags: IS_SPOILER_CHANNEL_FLAG, nsfw: false });
    const thread = f.sendCommand({
      name: 'image',
      options: { id: '1' },
      channel: f.foreignGuild.channels.threadInSpoiler,
      userId: f.foreignGuild.memberId,
    });
    // As for age restriction, a thread's partial channel names its parent and no flag of the parent's.
    expect(thread.payload['channel']).toMatchObject({ parent_id: f.foreignGuild.channels.spoiler, flags: 0 });
  });

  it('GIVEN updateChannel THEN discord.js gets CHANNEL_UPDATE with the flag on and off, and REST agrees', async () => {
    const f = await started();
    const c = await loggedIn(f);
    const { plain } = f.guild.channels;
    const on = once(c, Events.ChannelUpdate);
    f.updateChannel(plain, { flags: IS_SPOILER_CHANNEL_FLAG });
    await on;
    expect(flagsOf(c.channels.cache.get(plain))).toBe(IS_SPOILER_CHANNEL_FLAG);
    expect(await get(f, plain)).toMatchObject({ flags: IS_SPOILER_CHANNEL_FLAG, nsfw: false });
    const off = once(c, Events.ChannelUpdate);
    f.updateChannel(plain, { flags: 0, nsfw: true });
    await off;
    const now = c.channels.cache.get(plain);
    expect(flagsOf(now)).toBe(0);
    expect(now !== undefined && 'nsfw' in now ? now.nsfw : undefined).toBe(true);
  });

  it('GIVEN the flag on an age-restricted channel, or age restriction on a spoiler channel THEN refused, nothing changed', async () => {
    const f = await started();
    const { ageRestricted, spoiler, plain } = f.guild.channels;
    expect(() => f.updateChannel(ageRestricted, { flags: IS_SPOILER_CHANNEL_FLAG })).toThrow(
      /refuses a spoiler channel .* age-restricted/,
    );
    expect(() => f.updateChannel(spoiler, { nsfw: true })).toThrow(/refuses/);
    expect(() => f.updateChannel(plain, { nsfw: true, flags: IS_SPOILER_CHANNEL_FLAG })).toThrow(/refuses/);
    expect(await get(f, ageRestricted)).toMatchObject({ nsfw: true, flags: 0 });
    expect(await get(f, spoiler)).toMatchObject({ nsfw: false, flags: IS_SPOILER_CHANNEL_FLAG });
    expect(await get(f, plain)).toMatchObject({ nsfw: false, flags: 0 });
  });

  it('GIVEN updateChannel on a thread THEN refused: a thread follows its parent', async () => {
    const f = await started();
    expect(() => f.updateChannel('threadInPlain', { flags: IS_SPOILER_CHANNEL_FLAG })).toThrow(/parent/);
  });
});
