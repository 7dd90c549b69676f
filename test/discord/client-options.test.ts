import { Client, GatewayIntentBits, IntentsBitField } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDiscordClient, discordClientOptions } from '../../src/discord/client-options.js';

describe('discordClientOptions', () => {
  it('GIVEN any configuration THEN the shard count is the one Discord recommends (4011 past 2,500 servers otherwise)', () => {
    expect(discordClientOptions({ unfurl: true }).shards).toBe('auto');
    expect(discordClientOptions({ unfurl: false }).shards).toBe('auto');
  });

  it('GIVEN unfurling off THEN only the Guilds intent is asked for (no privileged intent)', () => {
    const intents = new IntentsBitField(discordClientOptions({ unfurl: false }).intents);
    expect(intents.toArray()).toEqual(['Guilds']);
  });

  it('GIVEN unfurling on THEN messages, their content and DMs are asked for, never members or presences', () => {
    const intents = new IntentsBitField(discordClientOptions({ unfurl: true }).intents);
    expect(intents.has(GatewayIntentBits.MessageContent)).toBe(true);
    expect(intents.has(GatewayIntentBits.GuildMembers)).toBe(false);
    expect(intents.has(GatewayIntentBits.GuildPresences)).toBe(false);
  });

  it('GIVEN the client built from them THEN nothing is cached: no server, channel, role, member, message or user (server-facts.ts keeps what the bot reads)', () => {
    const client = new Client(discordClientOptions({ unfurl: true }));
    try {
      // discord.js calls makeCache(holdsType, holds, managerClass) and picks the limit by the manager's name.
      const makeCache = client.options.makeCache as unknown as (
        holdsType: unknown,
        holds: unknown,
        manager: { name: string },
      ) => { maxSize?: number };
      const sizeOf = (name: string): number | undefined => makeCache(undefined, undefined, { name }).maxSize;
      for (const name of [
        'GuildManager',
        'ChannelManager',
        'GuildChannelManager',
        'ThreadManager',
        'GuildTextThreadManager',
        'GuildForumThreadManager',
        'RoleManager',
        'PermissionOverwriteManager',
        'MessageManager',
        'PresenceManager',
        'UserManager',
        'GuildMemberManager',
        'ReactionManager',
        'VoiceStateManager',
      ]) {
        expect(sizeOf(name), name).toBe(0);
      }
      expect(client.options.allowedMentions).toEqual({ parse: [], repliedUser: false });
    } finally {
      void client.destroy();
    }
  });
});

describe('createDiscordClient', () => {
  it('GIVEN the client made THEN discord.js’s warning about the caches it no longer keeps is dropped, and every other warning still goes out', async () => {
    void createDiscordClient(discordClientOptions({ unfurl: false })).destroy();
    const seen: string[] = [];
    const listen = (warning: Error) => seen.push(warning.message);
    process.on('warning', listen);
    try {
      process.emitWarning(
        'Overriding the cache handling for GuildManager',
        'UnsupportedCacheOverwriteWarning',
      );
      process.emitWarning('Overriding the cache handling for RoleManager', {
        type: 'UnsupportedCacheOverwriteWarning',
      });
      process.emitWarning('something else', 'OtherWarning');
      process.emitWarning(new Error('an error warning'));
      await new Promise((resolve) => setImmediate(resolve));
      // (discord.js's own, from clients built earlier in this file before the filter, may arrive too.)
      expect(seen.filter((message) => !message.startsWith('Overriding the cache handling'))).toEqual([
        'something else',
        'an error warning',
      ]);
      expect(seen).not.toContain('Overriding the cache handling for GuildManager');
      expect(seen).not.toContain('Overriding the cache handling for RoleManager');
    } finally {
      process.off('warning', listen);
    }
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** Builds the client the bot would, reads what discord.js made of the options, destroys it. */
  function built(input: Parameters<typeof discordClientOptions>[0]) {
    const client = createDiscordClient(discordClientOptions(input));
    try {
      const { shards, shardCount } = client.options;
      return { shards, shardCount, shard: client.shard };
    } finally {
      void client.destroy();
    }
  }

  it.each([
    ['blank, as `SHARD_COUNT=` and `SHARDS=` of .env.example give them', ''],
    ['bogus', 'lots'],
    ['a number', '7'],
  ])(
    'GIVEN SHARD_COUNT and SHARDS %s in the environment THEN the bot still connects every shard Discord recommends',
    (_, value) => {
      vi.stubEnv('SHARD_COUNT', value);
      vi.stubEnv('SHARDS', value);
      // discord.js would read SHARD_COUNT as Number('') = 0 and refuse to build the client.
      expect(built({ unfurl: true })).toEqual({ shards: 'auto', shardCount: 1, shard: null });
    },
  );

  it("GIVEN another process's SHARD_COUNT in the environment THEN the bot's own count of 1 and shard ids stand", () => {
    vi.stubEnv('SHARD_COUNT', '4');
    vi.stubEnv('SHARDS', '[2,3]');
    // A count of 1 is discord.js's default, which it would replace with the environment's.
    expect(built({ unfurl: false, shards: { ids: [0], count: 1 } })).toMatchObject({
      shards: [0],
      shardCount: 1,
    });
    expect(built({ unfurl: false, shards: { ids: [1, 2], count: 3 } })).toMatchObject({
      shards: [1, 2],
      shardCount: 3,
    });
  });

  it("GIVEN SHARDING_MANAGER in the environment THEN the client does not act as a ShardingManager's child (no IPC parent to report to)", () => {
    vi.stubEnv('SHARDING_MANAGER', 'true');
    vi.stubEnv('SHARDING_MANAGER_MODE', 'process');
    expect(built({ unfurl: false }).shard).toBeNull();
  });

  it('GIVEN the environment held those keys THEN they are as they were once the client is built, and unset ones stay unset', () => {
    vi.stubEnv('SHARD_COUNT', '');
    vi.stubEnv('SHARDS', 'not json');
    vi.stubEnv('SHARDING_MANAGER', undefined);
    vi.stubEnv('SHARDING_MANAGER_MODE', undefined);
    built({ unfurl: false });
    expect(process.env['SHARD_COUNT']).toBe('');
    expect(process.env['SHARDS']).toBe('not json');
    expect('SHARDING_MANAGER' in process.env).toBe(false);
    expect('SHARDING_MANAGER_MODE' in process.env).toBe(false);
  });
});
