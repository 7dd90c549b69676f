import { ApplicationIntegrationType, InteractionContextType, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { commandBodies, commandsHash } from '../../src/discord/registration.js';

describe('command bodies', () => {
  it('GIVEN a command limited to a permission THEN the permission is sent as the integer and the rest is untouched', () => {
    const commands = allCommands();
    const bodies = commandBodies(commands);
    const settings = bodies.find((body) => body.name === 'settings');
    expect(settings?.default_member_permissions).toBe(Number(PermissionFlagsBits.ManageGuild));
    for (const [i, body] of bodies.entries()) {
      const { default_member_permissions: _sent, integration_types: _t, contexts: _c, ...rest } = body;
      const {
        default_member_permissions: _built,
        integration_types: _bt,
        contexts: _bc,
        ...built
      } = commands[i]?.data ?? {};
      expect(rest).toEqual(built);
    }
    expect(bodies.filter((body) => typeof body.default_member_permissions === 'string')).toEqual([]);
  });

  it('GIVEN the same list twice THEN the same hash', () => {
    expect(commandsHash(commandBodies(allCommands()))).toBe(commandsHash(commandBodies(allCommands())));
  });

  it('GIVEN every command THEN its installs and contexts are explicit: server-only commands never reach user installs or private channels', () => {
    for (const body of commandBodies(allCommands())) {
      expect(body.integration_types, body.name).toBeDefined();
      expect(body.contexts, body.name).toBeDefined();
      if (body.contexts?.includes(InteractionContextType.PrivateChannel)) {
        expect(body.integration_types, body.name).toContain(ApplicationIntegrationType.UserInstall);
      }
    }
    for (const name of ['settings', 'feed']) {
      const body = commandBodies(allCommands()).find((b) => b.name === name);
      expect(body?.integration_types, name).toEqual([ApplicationIntegrationType.GuildInstall]);
      expect(body?.contexts, name).toEqual([InteractionContextType.Guild]);
    }
  });
});
