/**
 * What the local Discord does for a user-installed app: interactions from servers the bot is not in
 * (partial channel, member permissions, `authorizing_integration_owners` "1" only), from DMs and group DMs
 * between users (context 2) and from the bot's DM and its own servers (context 1 and 0, "0" and, with the
 * user's own install, "1"); responses forced ephemeral where the server turned off Use External Apps; at
 * most 5 follow-ups for a user install only; REST on a server the bot is not in answers 403 50001. An
 * unmodified discord.js client talks to it over 127.0.0.1.
 */
import { once } from 'node:events';
import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  REST,
  Routes,
  type ChatInputCommandInteraction,
  type Interaction,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from './index.js';

const NO_MENTIONS = { parse: [] as [] };
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
const USE_EXTERNAL_APPS = PermissionFlagsBits.UseExternalApps;

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake?.close();
  fake = undefined;
});

async function startFake(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  fake = await startFakeDiscord(options);
  return fake;
}

/** An unmodified discord.js client logged in to the fake; `seen` collects its interactions. */
async function loggedIn(f: FakeDiscord): Promise<{ c: Client; seen: Interaction[] }> {
  const c = new Client({ intents: INTENTS, rest: { api: f.apiUrl }, allowedMentions: NO_MENTIONS });
  clients.push(c);
  const seen: Interaction[] = [];
  c.on(Events.InteractionCreate, (interaction) => seen.push(interaction));
  const ready = once(c, Events.ClientReady);
  await c.login(f.token);
  await ready;
  return { c, seen };
}

/** The discord.js interaction built from the handle's INTERACTION_CREATE. */
function received(f: FakeDiscord, seen: Interaction[], id: string): Promise<Interaction> {
  return f.waitFor(() => seen.find((i) => i.id === id));
}

async function chatInput(
  f: FakeDiscord,
  seen: Interaction[],
  id: string,
): Promise<ChatInputCommandInteraction> {
  const interaction = await received(f, seen, id);
  if (!interaction.isChatInputCommand()) throw new Error(`interaction ${id} is not a chat input command`);
  return interaction;
}

function restOf(f: FakeDiscord): REST {
  return new REST({ api: f.apiUrl }).setToken(f.token);
}

/** The Discord error a promise rejects with (status and JSON code), or 'ok'. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: number | string } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, code: error.code };
    throw error;
  }
}

/** Registers global commands through the fake's REST, as the bot's deploy does. */
async function register(f: FakeDiscord, commands: object[]): Promise<void> {
  await restOf(f).put(Routes.applicationCommands(f.applicationId), { body: commands });
}

const lookup = (name: string, extra: object = {}): object => ({
  name,
  description: `${name} things`,
  type: ApplicationCommandType.ChatInput,
  integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
  contexts: [
    InteractionContextType.Guild,
    InteractionContextType.BotDM,
    InteractionContextType.PrivateChannel,
  ],
  ...extra,
});

describe('fake Discord: servers the bot is not in', () => {
  it('GIVEN a foreign server THEN the bot gets no READY entry or GUILD_CREATE for it and its ids are its own', async () => {
    const f = await startFake({ foreignGuilds: 2 });
    const { c } = await loggedIn(f);
    expect(f.foreignGuilds).toHaveLength(2);
    expect(f.foreignGuild).toBe(f.foreignGuilds[0]);
    expect(c.guilds.cache.has(f.guild.id)).toBe(true);
    for (const foreign of f.foreignGuilds) {
      expect(c.guilds.cache.has(foreign.id)).toBe(false);
      expect(c.channels.cache.has(foreign.channels.plain)).toBe(false);
      expect(foreign.channels.threadInAgeRestricted).not.toBe(f.guild.channels.threadInAgeRestricted);
    }
    const none = await startFakeDiscord({ foreignGuilds: 0 });
    expect(() => none.foreignGuild).toThrow(/foreignGuilds: 0/);
    await none.close();
  });

  it('GIVEN a user-install command in a foreign server THEN the payload is what Discord sends there and discord.js replies through the interaction webhook', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const foreign = f.foreignGuild;
    const handle = f.sendCommand({ name: 'image', options: { id: '1' }, channel: foreign.channels.plain });
    const p = handle.payload;
    expect(p['guild_id']).toBe(foreign.id);
    expect(p['context']).toBe(0);
    expect(p['authorizing_integration_owners']).toEqual({ '1': foreign.memberId });
    const channel = p['channel'] as Record<string, unknown>;
    expect(channel).toMatchObject({
      id: foreign.channels.plain,
      type: ChannelType.GuildText,
      nsfw: false,
      guild_id: foreign.id,
      name: 'general',
    });
    // A partial channel: no permission_overwrites, the member's permissions.
    expect(channel).not.toHaveProperty('permission_overwrites');
    const member = p['member'] as { permissions: string; user: { id: string } };
    expect(member.user.id).toBe(foreign.memberId);
    expect(BigInt(member.permissions) & USE_EXTERNAL_APPS).toBe(USE_EXTERNAL_APPS);
    expect(channel['permissions']).toBe(member.permissions);
    expect(p).not.toHaveProperty('user');
    const app = BigInt(p['app_permissions'] as string);
    expect(app & PermissionFlagsBits.EmbedLinks).toBe(PermissionFlagsBits.EmbedLinks);
    expect(app & PermissionFlagsBits.ManageMessages).toBe(0n);

    const interaction = await chatInput(f, seen, handle.id);
    expect(interaction.guildId).toBe(foreign.id);
    expect(interaction.inGuild()).toBe(true);
    expect(interaction.inCachedGuild()).toBe(false);
    expect(interaction.guild).toBeNull();
    expect(interaction.channel).toBeNull(); // not cached without Partials.Channel
    expect(interaction.channelId).toBe(foreign.channels.plain);
    expect(interaction.context).toBe(InteractionContextType.Guild);
    expect(interaction.authorizingIntegrationOwners.userId).toBe(foreign.memberId);
    expect(interaction.authorizingIntegrationOwners.guildId).toBeNull();
    await interaction.reply({ content: 'here it is', allowedMentions: NO_MENTIONS });
    const reply = await handle.finalReply();
    expect(reply.channelId).toBe(foreign.channels.plain);
    expect(reply.flags & MessageFlags.Ephemeral).toBe(0);
    expect(handle.forcedEphemeral).toBe(false);
    const edited = await interaction.editReply({ content: 'edited', allowedMentions: NO_MENTIONS });
    expect(edited.content).toBe('edited');
    expect(f.channelMessages(foreign.channels.plain).map((m) => m.content)).toEqual(['edited']);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN the age-restricted channel and the threads of a foreign server THEN the channel says nsfw and a thread only its parent_id', async () => {
    const f = await startFake();
    const foreign = f.foreignGuild;
    const ageRestricted = f.sendCommand({ name: 'image', channel: foreign.channels.ageRestricted }).payload;
    expect(ageRestricted['channel']).toMatchObject({ type: ChannelType.GuildText, nsfw: true });
    for (const [thread, parent] of [
      [foreign.channels.threadInAgeRestricted, foreign.channels.ageRestricted],
      [foreign.channels.threadInPlain, foreign.channels.plain],
    ] as const) {
      const channel = f.sendCommand({ name: 'image', channel: thread }).payload['channel'];
      expect(channel).toMatchObject({
        id: thread,
        type: ChannelType.PublicThread,
        parent_id: parent,
        guild_id: foreign.id,
      });
      // As the OpenAPI ThreadResponse: a thread has no nsfw of its own.
      expect(channel).not.toHaveProperty('nsfw');
      expect(channel).toHaveProperty('thread_metadata');
    }
  });

  it('GIVEN Use External Apps off for the member THEN every reply, defer and follow-up is made ephemeral and recorded as forced', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const channel = f.foreignGuild.channels.plain;

    const replied = f.sendCommand({ name: 'image', channel, externalApps: false });
    const member = replied.payload['member'] as { permissions: string };
    expect(BigInt(member.permissions) & USE_EXTERNAL_APPS).toBe(0n);
    expect(replied.forcedEphemeral).toBe(true);
    const first = await chatInput(f, seen, replied.id);
    await first.reply({ content: 'public, I hoped', allowedMentions: NO_MENTIONS });
    expect((await replied.finalReply()).flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    await first.followUp({ content: 'me too', allowedMentions: NO_MENTIONS });
    await first.followUp({ content: 'asked', flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
    expect(replied.followUps().map((m) => m.flags & MessageFlags.Ephemeral)).toEqual([
      MessageFlags.Ephemeral,
      MessageFlags.Ephemeral,
    ]);
    expect(replied.responses.map((r) => [r.kind, r.status, r.forcedEphemeral ?? false])).toEqual([
      ['callback', 204, true],
      ['followup', 200, true],
      ['followup', 200, false],
    ]);

    const deferred = f.sendCommand({ name: 'image', channel, externalApps: false });
    const second = await chatInput(f, seen, deferred.id);
    await second.deferReply();
    await second.editReply({ content: 'later', allowedMentions: NO_MENTIONS });
    const reply = await deferred.finalReply();
    expect(reply.content).toBe('later');
    expect(reply.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);

    // Explicit member permissions without the bit say the same; in the bot's own server the app is
    // installed, so nothing is forced there.
    const explicit = f.sendCommand({ name: 'image', channel, permissions: PermissionFlagsBits.ViewChannel });
    const own = f.sendCommand({ name: 'image', channel: 'plain', externalApps: false });
    expect([explicit.forcedEphemeral, own.forcedEphemeral]).toEqual([true, false]);
    for (const handle of [explicit, own]) {
      await (await chatInput(f, seen, handle.id)).reply({ content: 'ok', allowedMentions: NO_MENTIONS });
    }
    expect(((await own.finalReply()).flags & MessageFlags.Ephemeral) === 0).toBe(true);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a user install only THEN 5 follow-ups are accepted and a 6th is refused 400 40094 and recorded', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'search', channel: f.foreignGuild.channels.plain });
    const interaction = await chatInput(f, seen, handle.id);
    await interaction.reply({ content: 'page 1', allowedMentions: NO_MENTIONS });
    for (let i = 2; i <= 6; i += 1) {
      await interaction.followUp({ content: `page ${i}`, allowedMentions: NO_MENTIONS });
    }
    expect(await refusal(interaction.followUp({ content: 'page 7', allowedMentions: NO_MENTIONS }))).toEqual({
      status: 400,
      code: 40094,
    });
    expect(handle.followUps()).toHaveLength(5);
    expect(handle.responses.at(-1)).toMatchObject({ kind: 'followup', status: 400 });
    expect(f.violations.map((v) => [v.kind, v.code])).toEqual([['followup-limit', 40094]]);
  });

  it('GIVEN a deferred reply THEN the follow-up that fills it in creates no message and is not counted', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'search', channel: f.foreignGuild.channels.plain });
    const interaction = await chatInput(f, seen, handle.id);
    await interaction.deferReply();
    await interaction.followUp({ content: 'fills the defer', allowedMentions: NO_MENTIONS });
    for (let i = 0; i < 5; i += 1)
      await interaction.followUp({ content: `more ${i}`, allowedMentions: NO_MENTIONS });
    expect(handle.followUps()).toHaveLength(5);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN the bot\'s own server (owners hold "0") THEN follow-ups are not limited', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'search', channel: 'plain', install: 'both' });
    expect(handle.payload['authorizing_integration_owners']).toEqual({
      '0': f.guild.id,
      '1': f.guild.memberId,
    });
    const interaction = await chatInput(f, seen, handle.id);
    await interaction.reply({ content: 'page 1', allowedMentions: NO_MENTIONS });
    for (let i = 0; i < 7; i += 1)
      await interaction.followUp({ content: `page ${i}`, allowedMentions: NO_MENTIONS });
    expect(handle.followUps()).toHaveLength(7);
    expect(f.violations).toEqual([]);
  });

  it("GIVEN a button on a user-install answer clicked by another member THEN it carries the foreign server and the command user's install", async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const foreign = f.foreignGuild;
    const command = f.sendCommand({ name: 'search', channel: foreign.channels.plain });
    const interaction = await chatInput(f, seen, command.id);
    await interaction.reply({
      content: 'page 1',
      components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Next', custom_id: 'next' }] }],
      allowedMentions: NO_MENTIONS,
    });
    const reply = await command.finalReply();
    const click = f.sendButton({ customId: 'next', message: reply, userId: foreign.otherMemberId });
    expect(click.payload['guild_id']).toBe(foreign.id);
    expect(click.payload['context']).toBe(0);
    expect(click.payload['authorizing_integration_owners']).toEqual({ '1': foreign.memberId });
    const message = click.payload['message'] as { interaction_metadata: Record<string, unknown> };
    expect(message.interaction_metadata['authorizing_integration_owners']).toEqual({ '1': foreign.memberId });
    const button = await received(f, seen, click.id);
    if (!button.isButton()) throw new Error('not a button');
    await button.update({ content: 'page 2', allowedMentions: NO_MENTIONS });
    expect((await click.finalReply()).content).toBe('page 2');
    expect(f.violations).toEqual([]);
  });

  it('GIVEN install kinds the place cannot have THEN the fake refuses to dispatch, and sendMessage there too', async () => {
    const f = await startFake();
    expect(() =>
      f.sendCommand({ name: 'image', channel: f.foreignGuild.channels.plain, install: 'guild' }),
    ).toThrow(/not installed/);
    expect(() => f.sendCommand({ name: 'image', channel: 'groupDm', install: 'both' })).toThrow(
      /not installed/,
    );
    expect(() => f.sendCommand({ name: 'image', channel: 'plain', install: 'user' })).toThrow(/'both'/);
    await expect(f.sendMessage({ channel: f.foreignGuild.channels.plain, content: 'hi' })).rejects.toThrow(
      /no MESSAGE_CREATE/,
    );
    await expect(f.sendMessage({ channel: 'privateDm', content: 'hi' })).rejects.toThrow(/no MESSAGE_CREATE/);
  });
});

describe('fake Discord: DMs and the places the app is installed', () => {
  it('GIVEN a DM and a group DM between users THEN context 2, the user without member, the private channel and the documented app_permissions', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const dm = f.sendCommand({ name: 'image', channel: 'privateDm' });
    expect(dm.payload['channel_id']).toBe(f.privateChannels.dm);
    expect(dm.payload['context']).toBe(2);
    expect(dm.payload['authorizing_integration_owners']).toEqual({ '1': f.guild.memberId });
    expect(dm.payload).not.toHaveProperty('guild_id');
    expect(dm.payload).not.toHaveProperty('member');
    expect((dm.payload['user'] as { id: string }).id).toBe(f.guild.memberId);
    const dmChannel = dm.payload['channel'] as { type: number; recipients: { id: string }[] };
    expect(dmChannel.type).toBe(ChannelType.DM);
    expect(dmChannel.recipients.map((u) => u.id)).toEqual([f.guild.otherMemberId]);
    expect(BigInt(dm.payload['app_permissions'] as string)).toBe(
      PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone,
    );

    const group = f.sendCommand({
      name: 'image',
      channel: f.privateChannels.groupDm,
      userId: f.guild.ownerId,
    });
    expect(group.payload['context']).toBe(2);
    expect(group.payload['authorizing_integration_owners']).toEqual({ '1': f.guild.ownerId });
    expect(group.payload['channel']).toMatchObject({ type: ChannelType.GroupDM, name: 'art friends' });

    for (const handle of [dm, group]) {
      const interaction = await chatInput(f, seen, handle.id);
      expect(interaction.inGuild()).toBe(false);
      expect(interaction.context).toBe(InteractionContextType.PrivateChannel);
      await interaction.reply({ content: 'hello', allowedMentions: NO_MENTIONS });
      expect((await handle.finalReply()).channelId).toBe(handle.payload['channel_id']);
    }
    expect(f.violations).toEqual([]);
  });

  it('GIVEN the bot\'s DM THEN context 1 with "0": "0", "1" added by the user\'s own install, and the documented app_permissions', async () => {
    const f = await startFake();
    const guildInstall = f.sendCommand({ name: 'image', channel: 'dm' }).payload;
    expect(guildInstall['context']).toBe(1);
    expect(guildInstall['authorizing_integration_owners']).toEqual({ '0': '0' });
    expect(BigInt(guildInstall['app_permissions'] as string)).toBe(
      PermissionFlagsBits.AttachFiles |
        PermissionFlagsBits.EmbedLinks |
        PermissionFlagsBits.MentionEveryone |
        PermissionFlagsBits.UseExternalEmojis,
    );
    const both = f.sendCommand({ name: 'image', channel: 'dm', install: 'both' }).payload;
    expect(both['authorizing_integration_owners']).toEqual({ '0': '0', '1': f.guild.memberId });
    const userOnly = f.sendCommand({ name: 'image', channel: 'dm', install: 'user' }).payload;
    expect(userOnly['authorizing_integration_owners']).toEqual({ '1': f.guild.memberId });
  });

  it('GIVEN the bot\'s server THEN context 0 with "0": the guild id, as before', async () => {
    const f = await startFake();
    const payload = f.sendCommand({ name: 'image', channel: 'threadInPlain' }).payload;
    expect(payload['context']).toBe(0);
    expect(payload['authorizing_integration_owners']).toEqual({ '0': f.guild.id });
    expect(payload['guild_id']).toBe(f.guild.id);
  });
});

describe('fake Discord: where Discord offers a command', () => {
  it('GIVEN commands registered for every install and context THEN nothing is recorded unavailable', async () => {
    const f = await startFake();
    await register(f, [lookup('image')]);
    f.sendCommand({ name: 'image', channel: f.foreignGuild.channels.plain });
    f.sendCommand({ name: 'image', channel: 'groupDm' });
    f.sendCommand({ name: 'image', channel: 'dm' });
    f.sendCommand({ name: 'image', channel: 'plain', install: 'both' });
    expect(f.unavailableCommands).toEqual([]);
  });

  it('GIVEN a guild-install-only command or one without the context THEN the dispatch is recorded as one Discord would not offer', async () => {
    const f = await startFake();
    await register(f, [
      lookup('settings', { integration_types: [0], contexts: [0] }),
      lookup('mine', { integration_types: [1], contexts: [0, 1, 2] }),
    ]);
    const foreign = f.sendCommand({ name: 'settings', channel: f.foreignGuild.channels.plain });
    const inDm = f.sendCommand({ name: 'settings', channel: 'dm' });
    expect(f.unavailableCommands.map((u) => [u.name, u.interactionId, u.context, u.install])).toEqual([
      ['settings', foreign.id, 0, 'user'],
      ['settings', inDm.id, 1, 'guild'],
    ]);
    expect(f.unavailableCommands[0]?.reason).toMatch(/integration_types \[0\]/);
    expect(f.unavailableCommands[1]?.reason).toMatch(/contexts \[0\]/);

    // A user-install-only command in the bot's own server: only "1" authorizes it, so the follow-up limit holds.
    const mine = f.sendCommand({ name: 'mine', channel: 'plain', install: 'both' });
    expect(mine.payload['authorizing_integration_owners']).toEqual({ '1': f.guild.memberId });
    expect(f.unavailableCommands).toHaveLength(2);
  });

  it('GIVEN a command registered without integration_types THEN it follows the app-level install types', async () => {
    const f = await startFake({ appIntegrationTypes: [0] });
    await register(f, [{ name: 'legacy', description: 'old', type: 1 }]);
    f.sendCommand({ name: 'legacy', channel: 'plain' });
    expect(f.unavailableCommands).toEqual([]);
    f.sendCommand({ name: 'legacy', channel: f.foreignGuild.channels.plain });
    expect(f.unavailableCommands.map((u) => u.name)).toEqual(['legacy']);
  });
});

describe('fake Discord: REST where the bot is not', () => {
  it('GIVEN a foreign server THEN its channels, members and commands answer 403 50001 Missing Access and the guild 404 10004', async () => {
    const f = await startFake();
    const rest = restOf(f);
    const foreign = f.foreignGuild;
    const missingAccess = { status: 403, code: 50001 };
    expect(await refusal(rest.get(Routes.channel(foreign.channels.plain)))).toEqual(missingAccess);
    expect(await refusal(rest.get(Routes.channel(foreign.channels.threadInAgeRestricted)))).toEqual(
      missingAccess,
    );
    expect(
      await refusal(
        rest.post(Routes.channelMessages(foreign.channels.plain), {
          body: { content: 'hi', allowed_mentions: NO_MENTIONS },
        }),
      ),
    ).toEqual(missingAccess);
    expect(await refusal(rest.get(Routes.channelMessages(foreign.channels.plain)))).toEqual(missingAccess);
    expect(await refusal(rest.post(Routes.channelTyping(foreign.channels.plain)))).toEqual(missingAccess);
    expect(await refusal(rest.get(Routes.guildChannels(foreign.id)))).toEqual(missingAccess);
    expect(await refusal(rest.get(Routes.guildMember(foreign.id, foreign.memberId)))).toEqual(missingAccess);
    expect(
      await refusal(rest.put(Routes.applicationGuildCommands(f.applicationId, foreign.id), { body: [] })),
    ).toEqual(missingAccess);
    expect(await refusal(rest.get(Routes.guild(foreign.id)))).toEqual({ status: 404, code: 10004 });
    expect(await refusal(rest.get(Routes.channel(f.privateChannels.groupDm)))).toEqual(missingAccess);
    expect(f.violations.every((v) => v.kind === 'missing-permissions' || v.code === 10004)).toBe(true);
  });

  it('GIVEN a discord.js client THEN fetching a foreign channel fails with Missing Access', async () => {
    const f = await startFake();
    const { c } = await loggedIn(f);
    expect(await refusal(c.channels.fetch(f.foreignGuild.channels.ageRestricted))).toEqual({
      status: 403,
      code: 50001,
    });
  });
});
