import { Client, GatewayIntentBits, IntentsBitField } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { discordClientOptions } from '../../src/discord/client-options.js';

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

  it('GIVEN the client built from them THEN messages, presences, users and members are not cached', () => {
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
        'MessageManager',
        'PresenceManager',
        'UserManager',
        'GuildMemberManager',
        'ReactionManager',
      ]) {
        expect(sizeOf(name), name).toBe(0);
      }
      expect(client.options.allowedMentions).toEqual({ parse: [], repliedUser: false });
    } finally {
      void client.destroy();
    }
  });
});
