import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { commandBodies, commandsHash } from '../../src/bot/registration.js';

describe('command bodies', () => {
  it('GIVEN a command limited to a permission THEN the permission is sent as the integer and the rest is untouched', () => {
    const commands = allCommands();
    const bodies = commandBodies(commands);
    const settings = bodies.find((body) => body.name === 'settings');
    expect(settings?.default_member_permissions).toBe(Number(PermissionFlagsBits.ManageGuild));
    for (const [i, body] of bodies.entries()) {
      const { default_member_permissions: _sent, ...rest } = body;
      const { default_member_permissions: _built, ...built } = commands[i]?.data ?? {};
      expect(rest).toEqual(built);
    }
    expect(bodies.filter((body) => typeof body.default_member_permissions === 'string')).toEqual([]);
  });

  it('GIVEN the same list twice THEN the same hash', () => {
    expect(commandsHash(commandBodies(allCommands()))).toBe(commandsHash(commandBodies(allCommands())));
  });
});
