/**
 * The compact fact table of issue 23's design (bench/channel-facts-prototype.ts) against the servers the
 * memory bench generates (bench/bot-discord-world.ts): the facts the bot reads (type, age restriction,
 * parent, the bot's own permissions) come out of the packed form as Discord would compute them.
 */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { channelFact, packGuild, type RawGuild } from '../../bench/channel-facts-prototype.js';
import { createWorld } from '../../bench/bot-discord-world.js';

const world = createWorld({
  guilds: 2,
  layout: 'issue-23',
  channels: 0,
  roles: 10,
  members: 50,
  presences: 0,
});
const raw = JSON.parse(world.guildJson(1)) as RawGuild;
const packed = packGuild(raw, world.applicationId);
const fact = (id: string) => channelFact(packed, id, world.applicationId);
const text = (index: number): string => world.guilds[1]?.textChannelIds[index] ?? '';
const can = (id: string, bit: bigint): boolean => ((fact(id)?.botPermissions ?? 0n) & bit) === bit;

describe('the compact channel facts (prototype)', () => {
  it('GIVEN an ordinary and an age-restricted text channel THEN type, flag, parent and permissions read back', () => {
    expect(fact(text(0))).toMatchObject({ type: ChannelType.GuildText, ageRestricted: false });
    expect(fact(text(1))).toMatchObject({ type: ChannelType.GuildText, ageRestricted: true });
    expect(fact(text(0))?.parentId).toBe(raw.channels.find((c) => c.id === text(0))?.parent_id);
    expect(can(text(0), PermissionFlagsBits.SendMessages | PermissionFlagsBits.ManageMessages)).toBe(true);
  });

  it('GIVEN the private channel THEN @everyone is denied but the bot’s own overwrite lets it see', () => {
    expect(can(text(2), PermissionFlagsBits.ViewChannel)).toBe(true);
  });

  it('GIVEN a channel read-only for @everyone THEN the bot, without an overwrite of its own, may not send', () => {
    expect(can(text(4), PermissionFlagsBits.SendMessages)).toBe(false);
    expect(can(text(4), PermissionFlagsBits.ViewChannel)).toBe(true);
  });

  it('GIVEN a thread under an age-restricted channel THEN it is age-restricted and has its parent’s permissions', () => {
    const thread = raw.threads[0];
    expect(thread?.parent_id).toBe(text(1));
    expect(fact(thread?.id ?? '')).toMatchObject({
      type: ChannelType.PublicThread,
      ageRestricted: true,
      parentId: text(1),
      botPermissions: fact(text(1))?.botPermissions,
    });
  });

  it('GIVEN an id not in the server THEN there is no fact', () => {
    expect(fact('1')).toBeUndefined();
  });
});
