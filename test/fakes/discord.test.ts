/**
 * Self-tests of the local Discord: a real, unmodified discord.js Client talks to it over loopback.
 */
import { once } from 'node:events';
import zlib from 'node:zlib';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  InteractionResponseType,
  MessageFlags,
  Partials,
  REST,
  Routes,
  type Interaction,
  type Message,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
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

describe('fake Discord interaction kinds', () => {
  it('GIVEN an ephemeral defer WHEN the bot follows up THEN the first follow-up fills in the deferred reply and the next is new', async () => {
    const { fake, client } = await start();
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      await interaction.followUp({ content: 'first' });
      await interaction.followUp({ content: 'second' });
    });
    const handle = fake.sendCommand({ name: 'settings', channel: 'ageRestricted' });
    const reply = await handle.finalReply();
    expect(reply.content).toBe('first');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    await fake.waitFor(() => (handle.followUps().length === 1 ? true : undefined));
    expect(handle.followUps().map((m) => m.content)).toEqual(['second']);
    expect(handle.responses.map((r) => r.kind)).toEqual(['callback', 'followup', 'followup']);
    expect(fake.violations).toEqual([]);
  });

  it('GIVEN an autocomplete WHEN the bot responds THEN the choices are recorded', async () => {
    const { fake, client } = await start();
    onInteraction(client, async (interaction) => {
      if (!interaction.isAutocomplete()) return;
      const typed = interaction.options.getFocused();
      await interaction.respond([
        { name: `${typed} pony`, value: `${typed}_pony` },
        { name: `${typed} unicorn`, value: `${typed}_unicorn` },
      ]);
    });
    const handle = fake.sendAutocomplete({
      name: 'tag',
      options: { query: 'twi' },
      focused: 'query',
      channel: 'plain',
    });
    expect(await handle.autocompleteChoices()).toEqual([
      { name: 'twi pony', value: 'twi_pony' },
      { name: 'twi unicorn', value: 'twi_unicorn' },
    ]);
    expect((await handle.acknowledged).type).toBe(
      InteractionResponseType.ApplicationCommandAutocompleteResult,
    );
    expect(fake.violations).toEqual([]);
  });

  it('GIVEN a reply with a button WHEN the user clicks it THEN the bot updates the message (callback 7)', async () => {
    const { fake, client } = await start();
    onInteraction(client, async (interaction) => {
      if (interaction.isChatInputCommand()) {
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('page:2').setLabel('Next').setStyle(ButtonStyle.Primary),
        );
        await interaction.reply({ content: 'page 1', components: [row] });
      } else if (interaction.isButton()) {
        expect(interaction.message.content).toBe('page 1');
        await interaction.update({
          content: `page ${interaction.customId.split(':')[1] ?? '?'}`,
          components: [],
        });
      }
    });
    const first = await fake
      .sendCommand({ name: 'search', options: { query: 'safe' }, channel: 'threadInPlain' })
      .finalReply();
    expect(first.components).toHaveLength(1);
    const click = fake.sendButton({ customId: 'page:2', message: first });
    const updated = await click.finalReply();
    expect(updated.id).toBe(first.id);
    expect(updated.content).toBe('page 2');
    expect(updated.components).toEqual([]);
    expect(click.responses.map((r) => r.callbackType)).toEqual([InteractionResponseType.UpdateMessage]);
    expect(() => fake.sendButton({ customId: 'page:9', message: first })).toThrow(/no component page:9/);
    expect(fake.violations).toEqual([]);
    expect(fake.mentionRisks).toEqual([]);
  });

  it('GIVEN a message context menu in a DM-less guild thread WHEN the bot replies ephemerally THEN the target message is resolved and the reply is ephemeral', async () => {
    const { fake, client } = await start();
    let seenTarget = '';
    onInteraction(client, async (interaction) => {
      if (!interaction.isMessageContextMenuCommand()) return;
      seenTarget = interaction.targetMessage.content;
      await interaction.reply({ content: 'found 1 link', flags: MessageFlags.Ephemeral });
    });
    const handle = fake.sendMessageCommand({
      name: 'Show images',
      targetMessage: { content: 'look https://derpibooru.org/images/1' },
      channel: 'threadInAgeRestricted',
    });
    const reply = await handle.finalReply();
    expect(seenTarget).toBe('look https://derpibooru.org/images/1');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(fake.violations).toEqual([]);
  });

  it('GIVEN a slash command in the DM WHEN the bot replies THEN the interaction carries user and context 1', async () => {
    const { fake, client } = await start();
    let inGuild: boolean | undefined;
    let replyId: string | undefined;
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      inGuild = interaction.inGuild();
      const response = await interaction.reply({
        content: `hello ${interaction.user.username}`,
        withResponse: true,
      });
      replyId = response.resource?.message?.id;
    });
    const handle = fake.sendCommand({ name: 'help', channel: 'dm' });
    const reply = await handle.finalReply();
    expect(reply.content).toBe('hello plain_member');
    expect(await fake.waitFor(() => replyId)).toBe(reply.id);
    expect(reply.channelId).toBe(fake.dmChannelId);
    expect(inGuild).toBe(false);
    expect(handle.payload['context']).toBe(1);
    expect(handle.payload['user']).toBeDefined();
    expect(handle.payload['member']).toBeUndefined();
  });

  it('GIVEN registered commands WHEN a command is sent with option values THEN it carries the registered id and option types', async () => {
    const { fake, client } = await start();
    await client.application?.commands.set([
      {
        name: 'image',
        description: 'Show an image',
        options: [{ name: 'id', description: 'Image id', type: 10, required: true }],
      },
      // discord.js sends default_member_permissions as the documented string.
      { name: 'settings', description: 'Settings', defaultMemberPermissions: 1n << 5n },
    ]);
    const [registered, settings] = fake.registeredCommands();
    expect(registered?.name).toBe('image');
    expect(settings?.['default_member_permissions']).toBe('32');
    let value: number | null = null;
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      value = interaction.options.getNumber('id');
      expect(interaction.commandId).toBe(registered?.id);
      await interaction.reply({ content: 'ok' });
    });
    await fake.sendCommand({ name: 'image', options: { id: 7 }, channel: 'plain' }).finalReply();
    expect(value).toBe(7);
    await expect(
      client.application?.commands.set([{ name: 'Bad Name', description: 'x' }]),
    ).rejects.toMatchObject({ code: 50035 });
    expect(fake.violations.map((v) => v.kind)).toEqual(['schema']);
  });

  it('GIVEN an attachment option WHEN the bot fetches the attachment URL THEN the fake serves the bytes', async () => {
    const { fake, client } = await start();
    let body = '';
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      const attachment = interaction.options.getAttachment('image', true);
      body = await (await fetch(attachment.url)).text();
      await interaction.editReply({ content: attachment.name });
    });
    const handle = fake.sendCommand({
      name: 'reverse',
      channel: 'plain',
      attachments: [{ option: 'image', filename: 'pony.png', data: 'PNGBYTES' }],
    });
    expect((await handle.finalReply()).content).toBe('pony.png');
    expect(body).toBe('PNGBYTES');
  });
});

describe('fake Discord refusals', () => {
  it('GIVEN an embed title over 256 characters WHEN the bot replies THEN it is refused with 50035 and recorded', async () => {
    const { fake, client } = await start();
    const errors: unknown[] = [];
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      try {
        await interaction.reply({ embeds: [{ title: 'x'.repeat(257) }] });
      } catch (error) {
        errors.push(error);
        await interaction.reply({ content: 'fallback' });
      }
    });
    const handle = fake.sendCommand({ name: 'image', channel: 'plain' });
    expect((await handle.finalReply()).content).toBe('fallback');
    expect(errors[0]).toBeInstanceOf(DiscordAPIError);
    expect((errors[0] as DiscordAPIError).code).toBe(50035);
    expect(fake.violations).toHaveLength(1);
    expect(fake.violations[0]).toMatchObject({ kind: 'schema', code: 50035 });
    expect(fake.violations[0]?.details).toEqual({
      data: {
        embeds: { '0': { title: { _errors: [expect.objectContaining({ code: 'BASE_TYPE_MAX_LENGTH' })] } } },
      },
    });
    expect(handle.responses.map((r) => r.status)).toEqual([400, 204]);
  });

  it('GIVEN embeds over 6000 characters in total, a javascript: URL or 26 choices THEN each is refused', async () => {
    const { fake, client } = await start();
    const codes: unknown[] = [];
    onInteraction(client, async (interaction) => {
      try {
        if (interaction.isAutocomplete()) {
          await interaction.respond(
            Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `c${i}` })),
          );
        } else if (interaction.isChatInputCommand() && interaction.commandName === 'big') {
          const embed = { description: 'd'.repeat(4000), fields: [{ name: 'n', value: 'v'.repeat(1000) }] };
          await interaction.reply({ embeds: [embed, embed] });
        } else if (interaction.isChatInputCommand()) {
          await interaction.reply({ embeds: [{ title: 't', url: 'javascript:alert(1)' }] });
        }
      } catch (error) {
        codes.push(error instanceof DiscordAPIError ? error.code : error);
      }
    });
    fake.sendAutocomplete({ name: 'tag', options: { query: 'a' }, focused: 'query', channel: 'plain' });
    fake.sendCommand({ name: 'big', channel: 'plain' });
    fake.sendCommand({ name: 'link', channel: 'plain' });
    await fake.waitFor(() => (codes.length === 3 ? true : undefined));
    expect(codes).toEqual([50035, 50035, 50035]);
    const details = JSON.stringify(fake.violations.map((v) => v.details));
    expect(details).toContain('MAX_EMBED_SIZE_EXCEEDED');
    expect(details).toContain('URL_TYPE_INVALID_SCHEME');
    expect(details).toContain('choices');
  });

  it('GIVEN a reply later than the answer window THEN it is refused with 10062 and recorded as a late answer', async () => {
    const { fake, client } = await start({ answerWindowMs: 150 });
    const codes: unknown[] = [];
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
      try {
        await interaction.reply({ content: 'too late' });
      } catch (error) {
        codes.push(error instanceof DiscordAPIError ? error.code : error);
      }
    });
    const handle = fake.sendCommand({ name: 'slow', channel: 'plain' });
    await expect(handle.acknowledged).rejects.toThrow(/acknowledged/);
    await fake.waitFor(() => (codes.length > 0 ? true : undefined));
    expect(codes).toEqual([10062]);
    expect(fake.violations.map((v) => v.kind)).toEqual(['late-answer', 'late-answer']);
    expect(fake.channelMessages('plain')).toEqual([]);
  });

  it('GIVEN an answered interaction WHEN a second callback arrives THEN 40060; GIVEN an expired token THEN edits get 50027', async () => {
    const { fake, client } = await start({ tokenLifetimeMs: 200 });
    const codes: unknown[] = [];
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      try {
        await client.rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
          body: { type: InteractionResponseType.DeferredChannelMessageWithSource },
          auth: false,
        });
      } catch (error) {
        codes.push(error instanceof DiscordAPIError ? error.code : error);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
      try {
        await interaction.editReply({ content: 'done' });
      } catch (error) {
        codes.push(error instanceof DiscordAPIError ? error.code : error);
      }
    });
    fake.sendCommand({ name: 'slow', channel: 'plain' });
    await fake.waitFor(() => (codes.length === 2 ? true : undefined));
    expect(codes).toEqual([40060, 50027]);
    expect(fake.violations.map((v) => v.kind)).toEqual(['already-acknowledged', 'expired-token']);
  });

  it('GIVEN a wrong bot token THEN REST answers 401 and it is recorded', async () => {
    fake = await startFakeDiscord();
    const rest = new REST({ api: fake.apiUrl }).setToken('not-the-token');
    await expect(rest.get(Routes.user('@me'))).rejects.toMatchObject({ status: 401 });
    expect(fake.violations.map((v) => v.kind)).toEqual(['unauthorized']);
  });

  it('GIVEN a message that may ping THEN it is listed as a mention risk', async () => {
    const { fake, client } = await start();
    const channel = client.channels.cache.get(fake.guild.channels.plain);
    if (!channel?.isSendable()) throw new Error('plain channel not sendable');
    await channel.send({ content: 'silent' });
    await channel.send({ content: `hi <@${fake.guild.memberId}>`, allowedMentions: { parse: ['users'] } });
    expect(fake.mentionRisks).toHaveLength(1);
    expect(fake.mentionRisks[0]).toMatchObject({
      contentHasMention: true,
      allowedMentions: { parse: ['users'] },
    });
  });
});

describe('fake Discord messages', () => {
  it('GIVEN the Message Content intent WHEN a member posts THEN the bot receives the content and can suppress its embeds', async () => {
    const { fake, client } = await start();
    const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    const posted = await fake.sendMessage({ channel: 'plain', content: 'https://derpibooru.org/images/1' });
    const message = await received;
    expect(message.content).toBe('https://derpibooru.org/images/1');
    expect(message.guildId).toBe(fake.guild.id);
    await message.suppressEmbeds(true);
    await message.reply({ content: 'card', allowedMentions: { parse: [], repliedUser: false } });
    expect(fake.message(posted.id)?.flags).toBe(MessageFlags.SuppressEmbeds);
    expect(posted.replies().map((m) => m.content)).toEqual(['card']);
    expect(fake.channelMessages('plain').map((m) => m.id)).toEqual([posted.id, posted.replies()[0]?.id]);
    expect(fake.violations).toEqual([]);
    expect(fake.mentionRisks).toEqual([]);
  });

  it('GIVEN a client that has never seen the DM channel, with the Channel partial WHEN a DM arrives THEN messageCreate fires on a DM channel built from channel_type and the author, and a reply lands', async () => {
    fake = await startFakeDiscord();
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl },
      allowedMentions: NO_MENTIONS,
    });
    const ready = once(client, Events.ClientReady);
    await client.login(fake.token);
    await ready;
    expect(client.channels.cache.has(fake.dmChannelId)).toBe(false);
    const received = new Promise<Message>((resolve) => client?.once(Events.MessageCreate, resolve));
    const posted = await fake.sendMessage({ channel: fake.dmChannelId, content: 'hello bot' });
    const message = await received;
    expect(message.channel.type).toBe(ChannelType.DM);
    expect(message.guildId).toBeNull();
    expect(message.author.id).toBe(fake.guild.memberId);
    expect(message.content).toBe('hello bot');
    await message.reply({ content: 'hi', allowedMentions: { parse: [], repliedUser: false } });
    expect(posted.replies().map((m) => m.content)).toEqual(['hi']);
    expect(fake.violations).toEqual([]);
  });

  it('GIVEN no Manage Messages WHEN the bot suppresses a member message embeds THEN 403 50013', async () => {
    const { fake, client } = await start({
      botPermissions: (1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 16n),
    });
    const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    await fake.sendMessage({ channel: 'plain', content: 'https://derpibooru.org/images/1' });
    await expect((await received).suppressEmbeds(true)).rejects.toMatchObject({ code: 50013 });
    expect(fake.violations.map((v) => v.kind)).toEqual(['missing-permissions']);
  });

  it('GIVEN no Message Content intent WHEN a member posts THEN the content arrives blank', async () => {
    const { fake, client } = await start({}, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages]);
    const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    await fake.sendMessage({ channel: 'plain', content: 'https://derpibooru.org/images/1' });
    expect((await received).content).toBe('');
  });

  it('GIVEN Message Content is not allowed WHEN the bot asks for it THEN the gateway closes with 4014 and login fails', async () => {
    fake = await startFakeDiscord({ allowMessageContentIntent: false });
    client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      rest: { api: fake.apiUrl },
    });
    await expect(client.login(fake.token)).rejects.toThrow(/disallowed intents/i);
    expect(fake.gatewayCloses.map((c) => c.code)).toContain(4014);
  });

  it('GIVEN a 429 on message send WHEN discord.js retries after Retry-After THEN the send succeeds once', async () => {
    const { fake, client } = await start();
    fake.inject({ route: '/channels/:channel/messages', method: 'POST', status: 429, retryAfter: 0.05 });
    const channel = client.channels.cache.get(fake.guild.channels.plain);
    if (!channel?.isSendable()) throw new Error('plain channel not sendable');
    const sent = await channel.send({ content: 'after the limit' });
    const posts = fake.requests.filter(
      (r) => r.method === 'POST' && r.route === '/channels/:channel/messages',
    );
    expect(posts.map((r) => r.status)).toEqual([429, 200]);
    expect(fake.channelMessages('plain').map((m) => m.id)).toEqual([sent.id]);
  });

  it('GIVEN a 500 on an edit THEN discord.js sees the error and nothing changes', async () => {
    const { fake, client } = await start();
    const channel = client.channels.cache.get(fake.guild.channels.plain);
    if (!channel?.isSendable()) throw new Error('plain channel not sendable');
    const sent = await channel.send({ content: 'v1' });
    // discord.js retries a 5xx three times (four attempts) before giving up.
    fake.inject({
      route: /\/channels\/:channel\/messages\/:message$/,
      method: 'PATCH',
      status: 500,
      times: 4,
    });
    await expect(sent.edit({ content: 'v2' })).rejects.toMatchObject({ status: 500 });
    expect(fake.message(sent.id)?.content).toBe('v1');
    const patches = fake.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.status)).toEqual([500, 500, 500, 500]);
  });
});

describe('fake Discord reconnection', () => {
  it('GIVEN a dropped gateway WHEN discord.js resumes THEN missed events are replayed and interactions keep working', async () => {
    const { fake, client } = await start();
    const resumed = fake.whenResumed();
    fake.dropGateway(4000);
    const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    await fake.sendMessage({ channel: 'plain', content: 'sent while away' });
    await resumed;
    expect((await received).content).toBe('sent while away');
    expect(fake.resumes).toHaveLength(1);
    expect(fake.resumes[0]?.replayed).toBe(1);
    expect(fake.identifies).toHaveLength(1);
    onInteraction(client, async (interaction) => {
      if (interaction.isChatInputCommand()) await interaction.reply({ content: 'still here' });
    });
    expect((await fake.sendCommand({ name: 'ping', channel: 'plain' }).finalReply()).content).toBe(
      'still here',
    );
  });

  it('GIVEN an abrupt 1006 close THEN discord.js resumes as well', async () => {
    const { fake } = await start();
    const resumed = fake.whenResumed();
    fake.dropGateway(1006);
    await resumed;
    expect(fake.resumes).toHaveLength(1);
  });
});

describe('fake Discord REST reads and uploads', () => {
  it('GIVEN the seeded world WHEN discord.js fetches channels, messages, guild and members THEN REST answers them', async () => {
    const { fake, client } = await start();
    const channel = await client.channels.fetch(fake.guild.channels.ageRestricted, { force: true });
    expect(channel && 'nsfw' in channel ? channel.nsfw : undefined).toBe(true);
    const posted = await fake.sendMessage({ channel: 'plain', content: 'hello' });
    const plain = await client.channels.fetch(fake.guild.channels.plain);
    if (!plain?.isTextBased()) throw new Error('plain channel not text based');
    expect((await plain.messages.fetch({ message: posted.id, force: true })).content).toBe('hello');
    const guild = await client.guilds.fetch({ guild: fake.guild.id, force: true });
    expect(guild.ownerId).toBe(fake.guild.ownerId);
    const member = await guild.members.fetch({ user: fake.guild.memberId, force: true });
    expect(member.user.username).toBe('plain_member');
    await expect(guild.members.fetch({ user: '1', force: true })).rejects.toMatchObject({ code: 10007 });
    await expect(client.rest.get('/no/such/route')).rejects.toMatchObject({ status: 404 });
    expect(fake.violations.map((v) => v.kind)).toEqual(['unknown-resource', 'unknown-route']);
  });

  it('GIVEN a reply with a file WHEN sent as multipart THEN payload_json is validated and the file is served', async () => {
    const { fake, client } = await start();
    onInteraction(client, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.reply({
        embeds: [{ title: 'card', image: { url: 'attachment://card.png' } }],
        files: [{ attachment: Buffer.from('PNGDATA'), name: 'card.png' }],
      });
    });
    const reply = await fake.sendCommand({ name: 'image', channel: 'plain' }).finalReply();
    const callback = fake.requests.find((r) => r.route === '/interactions/:interaction/:token/callback');
    expect(callback?.files).toEqual([expect.objectContaining({ filename: 'card.png', size: 7 })]);
    expect(reply.attachments).toHaveLength(1);
    const url = String(reply.attachments[0]?.['url']);
    expect(await (await fetch(url)).text()).toBe('PNGDATA');
    expect(fake.violations).toEqual([]);
  });
});

describe('fake Discord gateway protocol', () => {
  async function connect(
    url: string,
  ): Promise<{ socket: WebSocket; frames: unknown[]; closed: Promise<number> }> {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    const frames: unknown[] = [];
    const inflate = zlib.createInflate();
    inflate.on('data', (chunk: Buffer) => frames.push(JSON.parse(chunk.toString('utf8'))));
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string') frames.push(JSON.parse(event.data));
      else inflate.write(Buffer.from(event.data as ArrayBuffer));
    });
    const closed = new Promise<number>((resolve) =>
      socket.addEventListener('close', (event) => resolve(event.code)),
    );
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', reject);
    });
    return { socket, frames, closed };
  }

  const opOf = (frame: unknown): unknown => (frame as { op?: unknown }).op;

  it('GIVEN compress=zlib-stream THEN frames are one deflate stream with sync flushes, and heartbeats are acknowledged', async () => {
    fake = await startFakeDiscord();
    const { socket, frames } = await connect(`${fake.gatewayUrl}?v=10&encoding=json&compress=zlib-stream`);
    await fake.waitFor(() => (frames.length >= 1 ? true : undefined));
    expect(frames[0]).toMatchObject({ op: 10, d: { heartbeat_interval: 2000 } });
    socket.send(JSON.stringify({ op: 1, d: null }));
    socket.send(
      JSON.stringify({ op: 2, d: { token: fake.token, intents: 1, properties: {}, shard: [0, 1] } }),
    );
    await fake.waitFor(() => (frames.length >= 4 ? true : undefined));
    expect(frames.map(opOf)).toEqual([10, 11, 0, 0]);
    expect(frames.slice(2).map((f) => (f as { t: string }).t)).toEqual(['READY', 'GUILD_CREATE']);
    socket.close(1000);
  });

  it('GIVEN messages in a DM, a text channel and a thread THEN each MESSAGE_CREATE names the channel type, and only guild ones carry guild_id and member', async () => {
    fake = await startFakeDiscord();
    const { socket, frames } = await connect(`${fake.gatewayUrl}?v=10&encoding=json`);
    await fake.waitFor(() => (frames.length >= 1 ? true : undefined));
    const intents =
      GatewayIntentBits.Guilds |
      GatewayIntentBits.GuildMessages |
      GatewayIntentBits.DirectMessages |
      GatewayIntentBits.MessageContent;
    socket.send(JSON.stringify({ op: 2, d: { token: fake.token, intents, properties: {}, shard: [0, 1] } }));
    await fake.whenReady();
    await fake.sendMessage({ channel: fake.dmChannelId, content: 'in dm' });
    await fake.sendMessage({ channel: 'plain', content: 'in plain' });
    await fake.sendMessage({ channel: 'threadInPlain', content: 'in thread' });
    const created = (): Record<string, unknown>[] =>
      frames
        .filter((f) => (f as { t?: unknown }).t === 'MESSAGE_CREATE')
        .map((f) => (f as { d: Record<string, unknown> }).d);
    await fake.waitFor(() => (created().length >= 3 ? true : undefined));
    const [dm, plain, thread] = created();
    expect(dm).toMatchObject({
      channel_id: fake.dmChannelId,
      channel_type: ChannelType.DM,
      content: 'in dm',
    });
    expect(dm).not.toHaveProperty('guild_id');
    expect(dm).not.toHaveProperty('member');
    expect((dm?.['author'] as { id?: unknown } | undefined)?.id).toBe(fake.guild.memberId);
    expect(plain).toMatchObject({ channel_type: ChannelType.GuildText, guild_id: fake.guild.id });
    expect(plain).toHaveProperty('member');
    expect(thread).toMatchObject({ channel_type: ChannelType.PublicThread, guild_id: fake.guild.id });
    socket.close(1000);
  });

  it('GIVEN a wrong API version, a wrong token or an unknown session THEN 4012, 4004 and INVALID_SESSION', async () => {
    fake = await startFakeDiscord();
    expect(await (await connect(`${fake.gatewayUrl}?v=9&encoding=json`)).closed).toBe(4012);
    const bad = await connect(`${fake.gatewayUrl}?v=10&encoding=json`);
    bad.socket.send(JSON.stringify({ op: 2, d: { token: 'wrong', intents: 1, properties: {} } }));
    expect(await bad.closed).toBe(4004);
    const stale = await connect(`${fake.gatewayUrl}?v=10&encoding=json`);
    stale.socket.send(JSON.stringify({ op: 6, d: { token: fake.token, session_id: 'nope', seq: 3 } }));
    await fake.waitFor(() => (stale.frames.length >= 2 ? true : undefined));
    expect(stale.frames[1]).toMatchObject({ op: 9, d: false });
    stale.socket.close(1000);
    expect(fake.gatewayCloses.map((c) => c.code)).toEqual([4012, 4004]);
  });
});
