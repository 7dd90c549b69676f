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

  it('GIVEN Find source THEN it is offered in servers and in DMs with the bot', () => {
    const findSource = allCommands().find((command) => command.data.name === 'Find source');
    expect(findSource?.data.contexts).toEqual([InteractionContextType.Guild, InteractionContextType.BotDM]);
  });
});
