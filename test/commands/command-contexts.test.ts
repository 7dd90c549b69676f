import { ApplicationIntegrationType, InteractionContextType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';

describe('command contexts', () => {
  it('GIVEN the command list THEN a private-channel context only comes with a user install', () => {
    for (const command of allCommands()) {
      const contexts = command.data.contexts ?? [];
      if (!contexts.includes(InteractionContextType.PrivateChannel)) continue;
      expect(command.data.integration_types ?? [], command.data.name).toContain(
        ApplicationIntegrationType.UserInstall,
      );
    }
  });

  it('GIVEN the lookup commands and menus THEN they install to servers and members and work in servers, the bot DM and private channels; settings and feeds stay in servers', () => {
    const everywhere = [
      'image',
      'search',
      'gallery',
      'comments',
      'forum',
      'tag',
      'reverse',
      'featured',
      'Find source',
      'Show card',
      'me',
      'upload',
      'Upload to board',
    ];
    for (const command of allCommands()) {
      if (everywhere.includes(command.data.name)) {
        expect(command.data.integration_types, command.data.name).toEqual([
          ApplicationIntegrationType.GuildInstall,
          ApplicationIntegrationType.UserInstall,
        ]);
        expect(command.data.contexts, command.data.name).toEqual([
          InteractionContextType.Guild,
          InteractionContextType.BotDM,
          InteractionContextType.PrivateChannel,
        ]);
      } else {
        expect(command.data.contexts, command.data.name).toEqual([InteractionContextType.Guild]);
      }
    }
    expect(
      allCommands()
        .map((c) => c.data.name)
        .sort(),
    ).toEqual([...everywhere, 'feed', 'settings'].sort());
  });
});
