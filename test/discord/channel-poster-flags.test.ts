/**
 * The channel poster's facts carry a channel's flags (and a thread's parent's), so the feed poller can
 * tell a spoiler channel (IS_SPOILER_CHANNEL) as it tells an age-restricted one: read from Discord's REST
 * by a process that does not hold the server, and from the live cache by one that does.
 */
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.js';
import { isAgeRestrictedChannel, isSpoilerChannel } from '../../commands/shared/safety.js';
import { IS_SPOILER_CHANNEL_FLAG, startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

let discord: FakeDiscord | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.destroy();
  await discord?.close();
  client = undefined;
  discord = undefined;
});

describe('the channel poster and spoiler channels', () => {
  it('GIVEN the spoiler channel and its thread read from REST THEN their flags say spoiler channel, not age-restricted', async () => {
    discord = await startFakeDiscord();
    client = new Client({ intents: [], rest: { api: discord.apiUrl } });
    client.rest.setToken(discord.token);
    const poster = createChannelPoster(client);
    const channel = await poster.channel(discord.guild.channels.spoiler);
    expect(channel?.flags).toBe(IS_SPOILER_CHANNEL_FLAG);
    expect(isSpoilerChannel(channel)).toBe(true);
    expect(isAgeRestrictedChannel(channel)).toBe(false);
    const thread = await poster.channel(discord.guild.channels.threadInSpoiler);
    expect(thread?.parent?.flags).toBe(IS_SPOILER_CHANNEL_FLAG);
    expect(isSpoilerChannel(thread)).toBe(true);
    const plain = await poster.channel(discord.guild.channels.plain);
    expect(plain?.flags).toBe(0);
    expect(isSpoilerChannel(plain)).toBe(false);
    expect(isSpoilerChannel(await poster.channel(discord.guild.channels.threadInPlain))).toBe(false);
  });

  it('GIVEN a process holding the server THEN the live cache gives the flags, and a change reaches it', async () => {
    discord = await startFakeDiscord();
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: discord.apiUrl } });
    const ready = once(client, Events.ClientReady);
    await client.login(discord.token);
    await ready;
    const poster = createChannelPoster(client);
    const { plain } = discord.guild.channels;
    expect(isSpoilerChannel(await poster.channel(plain))).toBe(false);
    const updated = once(client, Events.ChannelUpdate);
    discord.updateChannel(plain, { flags: IS_SPOILER_CHANNEL_FLAG });
    await updated;
    expect(isSpoilerChannel(await poster.channel(plain))).toBe(true);
  });
});
