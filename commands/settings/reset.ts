/**
 * `/settings reset`, confirmed: the answer says what would be cleared (the site, filters, references, the
 * server's tags and every channel's own settings; feeds stay) and waits for a press of **Reset everything**
 * by someone who may change the settings. One delete of the server's one record, so all of it goes at once.
 */
import { ButtonStyle, ComponentType } from 'discord.js';
import { z } from 'zod';
import type { Reply } from '../../src/discord/contract.js';
import { buttonCodec } from '../../src/discord/custom-id.js';
import { settingsGuildOf } from './scope.js';
import type { ButtonHandler, CommandContext } from '../shared/context.js';
import type { GuildSettingsRecord } from '../shared/guild-settings.js';
import { messageReply } from '../../src/discord/contract.js';

type ResetAction = 'reset-yes' | 'reset-no';

const resetCodec = buttonCodec<ResetAction, Record<string, never>>({
  namespace: 'set',
  schema: z.tuple([]).transform(() => ({})),
  write: () => [],
});

/** What a reset would clear, said plainly; undefined when the server set nothing. */
function whatWouldGo(record: GuildSettingsRecord): string | undefined {
  const parts: string[] = [];
  if (record.siteId !== undefined) parts.push('its site');
  const filters = Object.keys(record.filters).length;
  if (filters > 0) parts.push(filters === 1 ? 'its filter' : `its filters on ${filters} sites`);
  if (record.imageReferences === false) parts.push('references turned off');
  const hidden = record.hiddenTags?.length ?? 0;
  const spoilered = record.spoileredTags?.length ?? 0;
  if (hidden + spoilered > 0) parts.push(`its ${hidden} hidden and ${spoilered} spoilered tags`);
  const channels = Object.keys(record.channels ?? {}).length;
  if (channels > 0) parts.push(`the own settings of ${channels} channel${channels === 1 ? '' : 's'}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** `/settings reset`: the question, with the two buttons. */
export async function askReset(context: CommandContext, guildId: string): Promise<Reply> {
  const record = await context.settings.get(guildId);
  const what = whatWouldGo(record);
  if (what === undefined) {
    return messageReply({
      content: 'This server uses the bot defaults already: there is nothing to reset.',
      embeds: [],
      components: [],
    });
  }
  return messageReply({
    content: `Reset this server's settings? This clears ${what}. Feeds stay (remove them with /feed remove). This cannot be undone; /settings export first keeps a copy.`,
    embeds: [],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Danger,
            label: 'Reset everything',
            custom_id: resetCodec.encode('reset-yes', {}),
          },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            label: 'Cancel',
            custom_id: resetCodec.encode('reset-no', {}),
          },
        ],
      },
    ],
  });
}

export const resetButtons: Readonly<Record<string, ButtonHandler>> = {
  [resetCodec.key('reset-yes')]: {
    defer: () => 'update',
    async run(interaction, _args, context) {
      const guildId = settingsGuildOf(interaction);
      await context.settings.reset(guildId);
      return messageReply({
        content: 'Settings reset: this server and its channels use the bot defaults again. Feeds stay.',
        embeds: [],
        components: [],
      });
    },
  },
  [resetCodec.key('reset-no')]: {
    defer: () => 'update',
    run: async () => messageReply({ content: 'Nothing was reset.', embeds: [], components: [] }),
  },
};
