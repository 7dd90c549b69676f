/**
 * The channel poster (src/discord/channel-poster.ts) as a process that does not hold the server's shard
 * uses it: a discord.js client that never connected to the gateway, so every channel comes from Discord's
 * REST (the local Discord). A thread's age restriction is read from its parent; a deleted channel is null;
 * a post with a nonce is made once however often it is sent; Discord's refusals come back as reasons.
 */
import { Client, PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.js';
import { isAgeRestrictedChannel } from '../../commands/shared/safety.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

let discord: FakeDiscord | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.destroy();
  await discord?.close();
  client = undefined;
  discord = undefined;
});

async function restOnly() {
  discord = await startFakeDiscord();
  client = new Client({ intents: [], rest: { api: discord.apiUrl } });
  client.rest.setToken(discord.token);
  return { discord, poster: createChannelPoster(client) };
}

describe('the channel poster without the server in cache', () => {
  it('GIVEN a thread in an age-restricted channel, and one in a plain channel THEN each is judged by its parent', async () => {
    const { discord: d, poster } = await restOnly();
    const adult = await poster.channel(d.guild.channels.threadInAgeRestricted);
    const plain = await poster.channel(d.guild.channels.threadInPlain);
    expect(adult?.parent?.nsfw).toBe(true);
    expect(isAgeRestrictedChannel(adult)).toBe(true);
    expect(isAgeRestrictedChannel(plain)).toBe(false);
    expect(isAgeRestrictedChannel(await poster.channel(d.guild.channels.ageRestricted))).toBe(true);
  });

  it('GIVEN a deleted channel THEN it reads as null and a post says missing', async () => {
    const { discord: d, poster } = await restOnly();
    const plain = d.guild.channels.plain;
    d.deleteChannel(plain);
    expect(await poster.channel(plain)).toBeNull();
    const result = await poster.post(plain, { content: 'x' }, 'n1');
    expect(result).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('GIVEN one nonce sent twice THEN one message, pinging nobody; a channel it may not post in says forbidden', async () => {
    const { discord: d, poster } = await restOnly();
    const plain = d.guild.channels.plain;
    const first = await poster.post(plain, { content: '@everyone hi' }, 'same-nonce');
    const again = await poster.post(plain, { content: '@everyone hi' }, 'same-nonce');
    expect(first.ok && again.ok && first.messageId === again.messageId).toBe(true);
    const sent = d.channelMessages(plain);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.allowedMentions).toEqual({ parse: [] });
    d.denyBot(d.guild.channels.ageRestricted, PermissionFlagsBits.SendMessages);
    const refused = await poster.post(d.guild.channels.ageRestricted, { content: 'x' }, 'n2');
    expect(refused).toMatchObject({ ok: false, reason: 'forbidden' });
    await expect(poster.post(plain, { content: 'x' }, 'n'.repeat(26))).rejects.toThrow(RangeError);
  });
});
