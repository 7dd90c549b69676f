/**
 * The servers' facts kept from raw gateway packets (src/discord/server-facts.ts): what each event does to
 * them, that odd packets change nothing and throw nothing, and that the bot's permissions in a channel
 * are what discord.js's own `permissionsFor` computes from the same GUILD_CREATE (a property over random
 * servers: roles, the bot's roles, overwrites for @everyone, roles and members, Administrator, threads).
 */
import { ChannelType, Client, PermissionFlagsBits, type Guild } from 'discord.js';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerFacts, type ServerFacts } from '../../src/discord/server-facts.js';

const BOT = '900000000000000001';
const OTHER = '900000000000000002';
const GUILD = '100000000000000001';
const OWNER = '300000000000000001';
const ROLE = '400000000000000001';
const CATEGORY = '500000000000000001';
const PLAIN = '500000000000000002';
const MATURE = '500000000000000003';
const SPOILERS = '500000000000000004';
const THREAD = '500000000000000005';
const MATURE_THREAD = '500000000000000006';
const SPOILER_FLAG = 1 << 21;

const VIEW = PermissionFlagsBits.ViewChannel;
const SEND = PermissionFlagsBits.SendMessages;
const MANAGE = PermissionFlagsBits.ManageMessages;

function channel(id: string, type: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, type, guild_id: GUILD, name: `c-${id.slice(-2)}`, permission_overwrites: [], ...extra };
}

function thread(id: string, parent: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    type: ChannelType.PublicThread,
    guild_id: GUILD,
    parent_id: parent,
    name: `t-${id.slice(-2)}`,
    thread_metadata: { archived: false, locked: false, auto_archive_duration: 1440 },
    ...extra,
  };
}

function guildCreate(): Record<string, unknown> {
  return {
    id: GUILD,
    name: 'A server',
    preferred_locale: 'de',
    owner_id: OWNER,
    roles: [
      { id: GUILD, permissions: String(VIEW | SEND) },
      { id: ROLE, permissions: String(MANAGE) },
    ],
    channels: [
      channel(CATEGORY, ChannelType.GuildCategory),
      channel(PLAIN, ChannelType.GuildText, {
        parent_id: CATEGORY,
        nsfw: false,
        permission_overwrites: [{ id: BOT, type: 1, allow: '0', deny: String(SEND) }],
      }),
      channel(MATURE, ChannelType.GuildText, { nsfw: true }),
      channel(SPOILERS, ChannelType.GuildText, { flags: SPOILER_FLAG }),
    ],
    threads: [thread(THREAD, PLAIN), thread(MATURE_THREAD, MATURE)],
    members: [
      { user: { id: OTHER }, roles: [] },
      { user: { id: BOT }, roles: [ROLE] },
    ],
  };
}

function ready(): ServerFacts {
  const facts = createServerFacts();
  facts.apply({ t: 'READY', d: { user: { id: BOT }, guilds: [{ id: GUILD, unavailable: true }] } });
  facts.apply({ t: 'GUILD_CREATE', d: guildCreate() });
  return facts;
}

describe('server facts from the gateway', () => {
  it('GIVEN a GUILD_CREATE THEN the server, its channels and threads, their flags and parents and the bot’s permissions are known', () => {
    const facts = ready();
    expect(facts.holds(GUILD)).toBe(true);
    expect(facts.size).toBe(1);
    const server = facts.server(GUILD);
    expect(server?.name).toBe('A server');
    expect(server?.locale).toBe('de');
    expect(server?.channels().map((c) => c.id)).toEqual([
      CATEGORY,
      PLAIN,
      MATURE,
      SPOILERS,
      THREAD,
      MATURE_THREAD,
    ]);
    const plain = server?.channel(PLAIN);
    expect(plain).toMatchObject({
      type: ChannelType.GuildText,
      nsfw: false,
      flags: 0,
      parent: null,
      parentId: null,
    });
    // @everyone's view and send, the bot's role's manage messages, less the bot's own overwrite's send.
    expect(plain?.botPermissions).toBe(VIEW | MANAGE);
    expect(server?.channel(MATURE)).toMatchObject({ nsfw: true, botPermissions: VIEW | SEND | MANAGE });
    expect(server?.channel(SPOILERS)?.flags).toBe(SPOILER_FLAG);
    // A thread: its parent's facts and its parent's permissions.
    expect(server?.channel(MATURE_THREAD)).toMatchObject({
      parentId: MATURE,
      parent: { type: ChannelType.GuildText, nsfw: true, flags: 0 },
    });
    expect(server?.channel(THREAD)?.botPermissions).toBe(VIEW | MANAGE);
    expect(server?.channel('500000000000000099')).toBeUndefined();
    expect(server?.channel('not a snowflake')).toBeUndefined();
  });

  it('GIVEN channel events THEN a change, a deletion, an archived thread and a thread sync are kept', () => {
    const facts = ready();
    facts.apply({
      t: 'CHANNEL_UPDATE',
      d: channel(PLAIN, ChannelType.GuildText, { nsfw: true, name: 'renamed' }),
    });
    expect(facts.server(GUILD)?.channel(PLAIN)).toMatchObject({
      nsfw: true,
      name: 'renamed',
      botPermissions: VIEW | SEND | MANAGE,
    });
    // The thread follows its parent at once.
    expect(facts.server(GUILD)?.channel(THREAD)?.parent?.nsfw).toBe(true);
    facts.apply({ t: 'CHANNEL_DELETE', d: { id: SPOILERS, type: 0, guild_id: GUILD } });
    expect(facts.server(GUILD)?.channel(SPOILERS)).toBeUndefined();
    facts.apply({
      t: 'THREAD_UPDATE',
      d: thread(THREAD, PLAIN, { thread_metadata: { archived: true } }),
    });
    expect(facts.server(GUILD)?.channel(THREAD)).toBeUndefined();
    facts.apply({ t: 'THREAD_CREATE', d: thread('500000000000000007', SPOILERS) });
    // A thread whose parent the bot does not know: no parent facts, and no permissions.
    expect(facts.server(GUILD)?.channel('500000000000000007')).toMatchObject({
      parent: null,
      botPermissions: 0n,
    });
    facts.apply({
      t: 'THREAD_LIST_SYNC',
      d: { guild_id: GUILD, channel_ids: [MATURE], threads: [thread('500000000000000008', MATURE)] },
    });
    const ids = facts
      .server(GUILD)
      ?.channels()
      .map((c) => c.id);
    expect(ids).toContain('500000000000000008');
    expect(ids).not.toContain(MATURE_THREAD);
    expect(ids).toContain('500000000000000007');
    facts.apply({
      t: 'THREAD_DELETE',
      d: { id: '500000000000000008', guild_id: GUILD, parent_id: MATURE, type: 11 },
    });
    expect(facts.server(GUILD)?.channel('500000000000000008')).toBeUndefined();
  });

  it('GIVEN role, member and server events THEN the bot’s permissions, the name and the locale follow', () => {
    const facts = ready();
    facts.apply({ t: 'GUILD_ROLE_UPDATE', d: { guild_id: GUILD, role: { id: ROLE, permissions: '0' } } });
    expect(facts.server(GUILD)?.channel(MATURE)?.botPermissions).toBe(VIEW | SEND);
    facts.apply({
      t: 'GUILD_ROLE_CREATE',
      d: {
        guild_id: GUILD,
        role: { id: '400000000000000002', permissions: String(PermissionFlagsBits.Administrator) },
      },
    });
    // Someone else's roles change nothing of the bot's.
    facts.apply({
      t: 'GUILD_MEMBER_UPDATE',
      d: { guild_id: GUILD, user: { id: OTHER }, roles: ['400000000000000002'] },
    });
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe(VIEW);
    facts.apply({
      t: 'GUILD_MEMBER_UPDATE',
      d: { guild_id: GUILD, user: { id: BOT }, roles: ['400000000000000002'] },
    });
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe((1n << 64n) - 1n);
    facts.apply({ t: 'GUILD_ROLE_DELETE', d: { guild_id: GUILD, role_id: '400000000000000002' } });
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe(VIEW);
    facts.apply({
      t: 'GUILD_UPDATE',
      d: { id: GUILD, name: 'Renamed', preferred_locale: 'pt-BR', owner_id: BOT },
    });
    expect(facts.server(GUILD)).toMatchObject({ name: 'Renamed', locale: 'pt-BR' });
    // The owner may do everything.
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe((1n << 64n) - 1n);
  });

  it('GIVEN GUILD_DELETE THEN an outage keeps the server and a removal forgets it and says so, held or not', () => {
    const facts = ready();
    expect(facts.apply({ t: 'GUILD_DELETE', d: { id: GUILD, unavailable: true } })).toBeUndefined();
    expect(facts.holds(GUILD)).toBe(true);
    expect(facts.apply({ t: 'GUILD_DELETE', d: { id: GUILD } })).toEqual({ removed: [GUILD] });
    expect(facts.holds(GUILD)).toBe(false);
    expect(facts.server(GUILD)).toBeUndefined();
    // A server unavailable since READY was never held: its removal is still said (its feeds go dormant).
    expect(facts.apply({ t: 'GUILD_DELETE', d: { id: '100000000000000009' } })).toEqual({
      removed: ['100000000000000009'],
    });
    // Events of a server not held change nothing.
    facts.apply({ t: 'CHANNEL_CREATE', d: channel(PLAIN, 0) });
    expect(facts.holds(GUILD)).toBe(false);
  });

  it('GIVEN a fresh session’s READY THEN a server of that shard it no longer lists is forgotten and said as removed; other shards’ servers stay', () => {
    const facts = ready();
    const other = '100000000000000002';
    facts.apply({ t: 'GUILD_CREATE', d: { ...guildCreate(), id: other } });
    // Without the shard nothing is forgotten.
    expect(facts.apply({ t: 'READY', d: { user: { id: BOT }, guilds: [] } })).toBeUndefined();
    expect(facts.size).toBe(2);
    const shardOf = (id: string): number => Number((BigInt(id) >> 22n) % 2n);
    const mine = shardOf(GUILD);
    const applied = facts.apply({
      t: 'READY',
      d: { user: { id: BOT }, shard: [mine, 2], guilds: [] },
    });
    const expected = [GUILD, other].filter((id) => shardOf(id) === mine);
    expect(applied).toEqual(expected.length === 0 ? undefined : { removed: expected });
    for (const id of [GUILD, other]) expect(facts.holds(id)).toBe(shardOf(id) !== mine);
    // A READY that lists its servers keeps them.
    const again = ready();
    expect(
      again.apply({
        t: 'READY',
        d: { user: { id: BOT }, shard: [0, 1], guilds: [{ id: GUILD, unavailable: true }] },
      }),
    ).toBeUndefined();
    expect(again.holds(GUILD)).toBe(true);
  });

  it('GIVEN a channel deleted THEN its threads go with it', () => {
    const facts = ready();
    facts.apply({ t: 'CHANNEL_DELETE', d: { id: MATURE, type: 0, guild_id: GUILD } });
    expect(facts.server(GUILD)?.channel(MATURE_THREAD)).toBeUndefined();
    expect(facts.server(GUILD)?.channel(THREAD)).toBeDefined();
  });

  it('GIVEN one overwrite of a channel that cannot be read THEN the bot may do nothing there (its denies are never dropped), and its threads follow', () => {
    const facts = ready();
    facts.apply({
      t: 'CHANNEL_UPDATE',
      d: channel(PLAIN, ChannelType.GuildText, {
        permission_overwrites: [
          { id: BOT, type: 1, allow: '0', deny: String(VIEW) },
          { id: ROLE, type: 'role', allow: '0', deny: '0' },
        ],
      }),
    });
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe(0n);
    expect(facts.server(GUILD)?.channel(THREAD)?.botPermissions).toBe(0n);
    // Another channel is untouched.
    expect(facts.server(GUILD)?.channel(MATURE)?.botPermissions).toBe(VIEW | SEND | MANAGE);
  });

  it('GIVEN a channel type past what the layout keeps THEN it reads as an unknown type, never as another', () => {
    const facts = ready();
    facts.apply({
      t: 'CHANNEL_CREATE',
      d: channel('500000000000000020', 256 + ChannelType.GuildText, { nsfw: true }),
    });
    expect(facts.server(GUILD)?.channel('500000000000000020')?.type).toBe(255);
  });

  it('GIVEN odd packets THEN nothing throws, and one odd channel or role drops only itself', () => {
    const facts = ready();
    for (const packet of [
      null,
      42,
      'GUILD_CREATE',
      { t: 'GUILD_CREATE' },
      { t: 'GUILD_CREATE', d: null },
      { t: 'GUILD_CREATE', d: { id: 'x' } },
      { t: 'CHANNEL_UPDATE', d: { id: PLAIN, guild_id: GUILD } },
      { t: 'THREAD_LIST_SYNC', d: { guild_id: GUILD, channel_ids: 'no', threads: [null, 3] } },
      { t: 'GUILD_ROLE_UPDATE', d: { guild_id: GUILD, role: { id: ROLE, permissions: '-1' } } },
      { t: 'GUILD_MEMBER_UPDATE', d: { guild_id: GUILD, user: { id: BOT }, roles: 'none' } },
      { t: 'READY', d: { user: null } },
    ]) {
      expect(() => facts.apply(packet)).not.toThrow();
    }
    expect(facts.server(GUILD)?.channel(PLAIN)?.botPermissions).toBe(VIEW | MANAGE);
    const odd = guildCreate();
    odd['id'] = '100000000000000002';
    odd['channels'] = [{ id: 'bad' }, channel('600000000000000001', 0, { guild_id: '100000000000000002' })];
    odd['threads'] = [];
    odd['roles'] = [{ id: '100000000000000002', permissions: String(VIEW) }, { id: 7 }];
    facts.apply({ t: 'GUILD_CREATE', d: odd });
    expect(
      facts
        .server('100000000000000002')
        ?.channels()
        .map((c) => c.id),
    ).toEqual(['600000000000000001']);
    expect(facts.server('100000000000000002')?.channel('600000000000000001')?.botPermissions).toBe(VIEW);
  });
});

describe('the bot’s permissions, against discord.js’s own permissionsFor', () => {
  const client = new Client({ intents: [] });
  afterAll(() => client.destroy());

  const roleIds = ['400000000000000001', '400000000000000002', '400000000000000003', '400000000000000004'];
  const flags = [
    PermissionFlagsBits.ViewChannel,
    PermissionFlagsBits.SendMessages,
    PermissionFlagsBits.SendMessagesInThreads,
    PermissionFlagsBits.EmbedLinks,
    PermissionFlagsBits.AttachFiles,
    PermissionFlagsBits.ReadMessageHistory,
    PermissionFlagsBits.ManageMessages,
    PermissionFlagsBits.Administrator,
  ];
  const bitsArb = fc
    .array(fc.boolean(), { minLength: flags.length, maxLength: flags.length })
    .map((on) => flags.reduce((all, bit, i) => (on[i] === true ? all | bit : all), 0n));
  // Administrator rarely, so that overwrites matter in most runs.
  const roleBits = fc
    .tuple(bitsArb, fc.nat(9))
    .map(([b, n]) => (n === 0 ? b : b & ~PermissionFlagsBits.Administrator));
  const overwriteArb = fc.record({
    target: fc.constantFrom(GUILD, BOT, OTHER, ...roleIds),
    allow: bitsArb.map((b) => b & ~PermissionFlagsBits.Administrator),
    deny: bitsArb.map((b) => b & ~PermissionFlagsBits.Administrator),
  });
  const serverArb = fc.record({
    everyone: roleBits,
    roles: fc.array(roleBits, { minLength: roleIds.length, maxLength: roleIds.length }),
    botRoles: fc.subarray(roleIds),
    overwrites: fc.uniqueArray(overwriteArb, { selector: (o) => o.target, maxLength: 5 }),
    owner: fc.constantFrom(OWNER, OWNER, OWNER, BOT),
  });

  it('GIVEN random roles, bot roles and overwrites THEN every channel and thread has the permissions discord.js computes', () => {
    fc.assert(
      fc.property(serverArb, (s) => {
        const payload = {
          ...guildCreate(),
          owner_id: s.owner,
          roles: [
            { id: GUILD, permissions: String(s.everyone), name: '@everyone', position: 0 },
            ...roleIds.map((id, i) => ({
              id,
              permissions: String(s.roles[i] ?? 0n),
              name: `r${i}`,
              position: i + 1,
            })),
          ],
          channels: [
            channel(PLAIN, ChannelType.GuildText, {
              permission_overwrites: s.overwrites.map((o) => ({
                id: o.target,
                type: o.target === BOT || o.target === OTHER ? 1 : 0,
                allow: String(o.allow),
                deny: String(o.deny),
              })),
            }),
          ],
          threads: [thread(THREAD, PLAIN)],
          members: [
            { user: { id: BOT, username: 'bot' }, roles: s.botRoles, joined_at: new Date(0).toISOString() },
          ],
        };
        const facts = createServerFacts();
        facts.apply({ t: 'READY', d: { user: { id: BOT } } });
        facts.apply({ t: 'GUILD_CREATE', d: payload });
        // discord.js keeps channels by id across servers: each run's server is built afresh.
        client.channels.cache.clear();
        client.guilds.cache.clear();
        const guild = (client.guilds as unknown as { _add(data: unknown, cache: boolean): Guild })._add(
          payload,
          false,
        );
        const me = guild.members.cache.get(BOT);
        if (me === undefined) throw new Error('discord.js kept no bot member');
        for (const id of [PLAIN, THREAD]) {
          const theirs = guild.channels.cache.get(id)?.permissionsFor(me)?.bitfield;
          const ours = facts.server(GUILD)?.channel(id)?.botPermissions;
          // discord.js's "all" is every flag it knows; ours is every bit: compare what discord.js knows.
          const known = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);
          expect((ours ?? -1n) & known, id).toBe(theirs);
        }
      }),
      { numRuns: 300 },
    );
  });
});
