/**
 * The local Discord's `data.resolved` for command options (partial channels, users with their members,
 * roles) and forwarded messages (MESSAGE_CREATE with an empty body of its own, `message_reference` type 1
 * and the original in `message_snapshots`, also as the target of a message context menu), as an unmodified
 * discord.js client reads them over 127.0.0.1: `options.getChannel()`, `message.messageSnapshots`.
 */
import { once } from 'node:events';
import {
  ApplicationCommandOptionType,
  ChannelType,
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  MessageReferenceType,
  PermissionFlagsBits,
  REST,
  Routes,
  type APIMessage,
  type Interaction,
  type Message,
  type PermissionsBitField,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.js';

const NO_MENTIONS = { parse: [] as [] };
const BASE_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
];
const HAS_SNAPSHOT = 1 << 14;

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake?.close();
  fake = undefined;
});

async function startFake(): Promise<FakeDiscord> {
  fake = await startFakeDiscord();
  return fake;
}

/** An unmodified discord.js client; `seen` collects interactions, `messages` MESSAGE_CREATEs. */
async function loggedIn(
  f: FakeDiscord,
  { messageContent = true }: { messageContent?: boolean } = {},
): Promise<{ seen: Interaction[]; messages: Message[] }> {
  const intents = messageContent ? [...BASE_INTENTS, GatewayIntentBits.MessageContent] : BASE_INTENTS;
  const c = new Client({ intents, rest: { api: f.apiUrl }, allowedMentions: NO_MENTIONS });
  clients.push(c);
  const seen: Interaction[] = [];
  const messages: Message[] = [];
  c.on(Events.InteractionCreate, (interaction) => seen.push(interaction));
  c.on(Events.MessageCreate, (message) => messages.push(message));
  const ready = once(c, Events.ClientReady);
  await c.login(f.token);
  await ready;
  return { seen, messages };
}

function received(f: FakeDiscord, seen: Interaction[], id: string): Promise<Interaction> {
  return f.waitFor(() => seen.find((i) => i.id === id));
}

/** Registers /pick with a channel, a user and a role option. */
async function registerPick(f: FakeDiscord): Promise<void> {
  await new REST({ api: f.apiUrl }).setToken(f.token).put(Routes.applicationCommands(f.applicationId), {
    body: [
      {
        name: 'pick',
        description: 'pick things',
        integration_types: [0, 1],
        contexts: [0, 1, 2],
        options: [
          { name: 'where', description: 'a channel', type: ApplicationCommandOptionType.Channel },
          { name: 'who', description: 'a user', type: ApplicationCommandOptionType.User },
          { name: 'role', description: 'a role', type: ApplicationCommandOptionType.Role },
        ],
      },
    ],
  });
}

describe('fake Discord: resolved option data', () => {
  it("GIVEN a channel option in the bot's server THEN resolved.channels has the partial channel and discord.js's getChannel() gives the cached channel with the member's permissions", async () => {
    const f = await startFake();
    await registerPick(f);
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({
      name: 'pick',
      channel: 'plain',
      options: { where: 'ageRestricted', who: f.guild.otherMemberId, role: f.guild.roles.moderators },
    });
    const data = handle.payload['data'] as {
      options: { name: string; value: string }[];
      resolved: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(data.options.find((o) => o.name === 'where')?.value).toBe(f.guild.channels.ageRestricted);
    const channel = data.resolved['channels']?.[f.guild.channels.ageRestricted];
    expect(channel).toMatchObject({
      id: f.guild.channels.ageRestricted,
      name: 'mature-art',
      type: ChannelType.GuildText,
      nsfw: true,
      parent_id: f.guild.channels.category,
      guild_id: f.guild.id,
    });
    expect(typeof channel?.['permissions']).toBe('string');
    expect(data.resolved['users']?.[f.guild.otherMemberId]).toMatchObject({ id: f.guild.otherMemberId });
    const member = data.resolved['members']?.[f.guild.otherMemberId];
    expect(member).toHaveProperty('permissions');
    expect(member).not.toHaveProperty('user');
    expect(data.resolved['roles']?.[f.guild.roles.moderators]).toMatchObject({ name: 'Moderators' });

    const interaction = await received(f, seen, handle.id);
    if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
    const picked = interaction.options.getChannel('where');
    expect(picked?.id).toBe(f.guild.channels.ageRestricted);
    expect(picked !== null && 'nsfw' in picked ? picked.nsfw : undefined).toBe(true);
    const permissions = (picked as unknown as { permissions: PermissionsBitField | null }).permissions;
    expect(permissions?.has(PermissionFlagsBits.ViewChannel)).toBe(true);
    expect(interaction.options.getUser('who')?.id).toBe(f.guild.otherMemberId);
    expect(interaction.options.getMember('who')).not.toBeNull();
    expect(interaction.options.getRole('role')?.name).toBe('Moderators');
    await interaction.reply({ content: 'ok', allowedMentions: NO_MENTIONS });
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a thread as the channel option THEN it comes with parent_id and thread_metadata, and getChannel() gives the thread', async () => {
    const f = await startFake();
    await registerPick(f);
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({
      name: 'pick',
      channel: 'plain',
      options: { where: 'threadInAgeRestricted' },
    });
    const resolved = (handle.payload['data'] as { resolved: { channels: Record<string, object> } }).resolved;
    expect(resolved.channels[f.guild.channels.threadInAgeRestricted]).toMatchObject({
      type: ChannelType.PublicThread,
      parent_id: f.guild.channels.ageRestricted,
      thread_metadata: { archived: false },
    });
    const interaction = await received(f, seen, handle.id);
    if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
    const thread = interaction.options.getChannel('where');
    expect(thread?.type).toBe(ChannelType.PublicThread);
    expect(thread !== null && 'parent' in thread ? thread.parent?.id : undefined).toBe(
      f.guild.channels.ageRestricted,
    );
    await interaction.reply({ content: 'ok', allowedMentions: NO_MENTIONS });
  });

  it('GIVEN a channel option in a server the bot is not in THEN getChannel() gives the raw partial channel, nsfw included', async () => {
    const f = await startFake();
    await registerPick(f);
    const { seen } = await loggedIn(f);
    const foreign = f.foreignGuild;
    const handle = f.sendCommand({
      name: 'pick',
      channel: foreign.channels.plain,
      options: { where: foreign.channels.ageRestricted, who: foreign.otherMemberId },
    });
    const interaction = await received(f, seen, handle.id);
    if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
    expect(interaction.options.getChannel('where')).toMatchObject({
      id: foreign.channels.ageRestricted,
      nsfw: true,
      guild_id: foreign.id,
    });
    expect(interaction.options.getUser('who')?.id).toBe(foreign.otherMemberId);
    await interaction.reply({ content: 'ok', allowedMentions: NO_MENTIONS });
    expect(f.violations).toEqual([]);
  });
});

describe('fake Discord: forwarded messages', () => {
  it('GIVEN a forward of a message THEN MESSAGE_CREATE has no content of its own, reference type 1 and the original in message_snapshots, as discord.js reads them', async () => {
    const f = await startFake();
    const { messages } = await loggedIn(f);
    const original = await f.sendMessage({
      channel: 'plain',
      content: 'look https://derpibooru.org/images/1',
      embeds: [{ title: 'an embed' }],
    });
    const forward = await f.sendMessage({ channel: 'threadInPlain', forwardOf: original.message });
    expect(forward.message.content).toBe('');
    expect(forward.message.flags & HAS_SNAPSHOT).toBe(HAS_SNAPSHOT);
    expect(forward.message.messageReference).toEqual({
      type: 1,
      message_id: original.id,
      channel_id: f.guild.channels.plain,
      guild_id: f.guild.id,
    });

    const message = await f.waitFor(() => messages.find((m) => m.id === forward.id));
    expect(message.content).toBe('');
    expect(message.reference?.type).toBe(MessageReferenceType.Forward);
    expect(message.reference?.messageId).toBe(original.id);
    const snapshot = message.messageSnapshots.get(original.id);
    expect(snapshot?.content).toBe('look https://derpibooru.org/images/1');
    expect(snapshot?.embeds[0]?.title).toBe('an embed');
    expect(message.flags.has(MessageFlags.HasSnapshot)).toBe(true);
  });

  it('GIVEN a forward from a server the bot cannot see THEN the reference names unknown ids and the snapshot carries content, embeds and attachments', async () => {
    const f = await startFake();
    const { messages } = await loggedIn(f);
    const forward = await f.sendMessage({
      channel: 'plain',
      forwardOf: {
        content: 'from elsewhere',
        attachments: [{ filename: 'pony.png', url: 'https://example.invalid/pony.png', size: 10 }],
      },
    });
    const reference = forward.message.messageReference;
    expect(reference?.type).toBe(1);
    expect(reference?.guild_id).not.toBe(f.guild.id);
    const message = await f.waitFor(() => messages.find((m) => m.id === forward.id));
    const snapshot = message.messageSnapshots.first();
    expect(snapshot?.content).toBe('from elsewhere');
    expect(snapshot?.attachments.first()?.name).toBe('pony.png');
  });

  it('GIVEN no Message Content intent THEN the forward and its snapshot arrive blanked', async () => {
    const f = await startFake();
    const { messages } = await loggedIn(f, { messageContent: false });
    const forward = await f.sendMessage({
      channel: 'plain',
      forwardOf: { content: 'secret', channel: 'ageRestricted' },
    });
    const message = await f.waitFor(() => messages.find((m) => m.id === forward.id));
    expect(message.reference?.type).toBe(MessageReferenceType.Forward);
    expect(message.messageSnapshots.first()?.content).toBe('');
  });

  it('GIVEN a message context menu on a forward THEN resolved.messages carries the snapshot whatever the intents, and REST answers it too', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f, { messageContent: false });
    const handle = f.sendMessageCommand({
      name: 'Show card',
      channel: 'plain',
      targetMessage: { forwardOf: { content: 'https://derpibooru.org/images/2' } },
    });
    const data = handle.payload['data'] as {
      target_id: string;
      resolved: { messages: Record<string, APIMessage> };
    };
    const target = data.resolved.messages[data.target_id];
    expect(target?.message_reference?.type).toBe(1);
    expect(target?.message_snapshots?.[0]?.message.content).toBe('https://derpibooru.org/images/2');
    const interaction = await received(f, seen, handle.id);
    if (!interaction.isMessageContextMenuCommand()) throw new Error('not a message context menu');
    expect(interaction.targetMessage.messageSnapshots.first()?.content).toBe(
      'https://derpibooru.org/images/2',
    );
    await interaction.reply({ content: 'ok', allowedMentions: NO_MENTIONS });

    const rest = new REST({ api: f.apiUrl }).setToken(f.token);
    const fetched = (await rest.get(
      Routes.channelMessage(f.guild.channels.plain, data.target_id),
    )) as APIMessage;
    expect(fetched.message_snapshots?.[0]?.message.content).toBe('https://derpibooru.org/images/2');
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a forward with content of its own THEN the fake refuses it (Discord sends the comment separately)', async () => {
    const f = await startFake();
    const original = await f.sendMessage({ channel: 'plain', content: 'x' });
    await expect(
      f.sendMessage({ channel: 'plain', content: 'see this', forwardOf: original.message }),
    ).rejects.toThrow(/separate message/);
  });
});
