/**
 * `/settings reset`, confirmed: the answer says what would be cleared (the site, filters, references, the
 * server's tags, its language and every channel's own settings; feeds stay) and waits for a press of
 * **Reset everything** by someone who may change the settings. One delete of the server's one record, so
 * all of it goes at once.
 */
import { ButtonStyle, ComponentType } from 'discord.js';
import { z } from 'zod';
import type { Reply } from '../../src/discord/contract.js';
import { buttonCodec } from '../../src/discord/custom-id.js';
import { settingsGuildOf } from './scope.js';
import type { ButtonHandler, CommandContext } from '../shared/context.js';
import type { GuildSettingsRecord } from '../shared/guild-settings.js';
import { messageReply } from '../../src/discord/contract.js';
import { sayIn, type Say } from '../shared/say.js';
import { languageName } from './language.js';

type ResetAction = 'reset-yes' | 'reset-no';

const resetCodec = buttonCodec<ResetAction, Record<string, never>>({
  namespace: 'set',
  schema: z.tuple([]).transform(() => ({})),
  write: () => [],
});

/** What a reset would clear, said plainly in `say`'s language; undefined when the server set nothing. */
function whatWouldGo(record: GuildSettingsRecord, say: Say): string | undefined {
  const parts: string[] = [];
  if (record.siteId !== undefined) parts.push(say('settings.reset.part.site'));
  const filters = Object.keys(record.filters).length;
  if (filters > 0) parts.push(say('settings.reset.part.filters', { count: filters }));
  if (record.imageReferences === false) parts.push(say('settings.reset.part.references'));
  const hidden = record.hiddenTags?.length ?? 0;
  const spoilered = record.spoileredTags?.length ?? 0;
  if (hidden + spoilered > 0) parts.push(say('settings.reset.part.tags', { hidden, spoilered }));
  if (record.language !== undefined) {
    parts.push(say('language.reset-part', { name: languageName(record.language) }));
  }
  const channels = Object.keys(record.channels ?? {}).length;
  if (channels > 0) parts.push(say('settings.reset.part.channels', { count: channels }));
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** The question of `/settings reset` with its two buttons, or the note that there is nothing to reset. */
export function resetQuestion(record: GuildSettingsRecord, say: Say): Reply {
  const what = whatWouldGo(record, say);
  if (what === undefined) {
    return messageReply({ content: say('settings.reset.nothing'), embeds: [], components: [] });
  }
  return messageReply({
    content: say('settings.reset.question', { what }),
    embeds: [],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Danger,
            label: say('settings.reset.button.confirm'),
            custom_id: resetCodec.encode('reset-yes', {}),
          },
          {
            type: ComponentType.Button,
            style: ButtonStyle.Secondary,
            label: say('settings.reset.button.cancel'),
            custom_id: resetCodec.encode('reset-no', {}),
          },
        ],
      },
    ],
  });
}

/** `/settings reset`: the question, with the two buttons. */
export async function askReset(context: CommandContext, guildId: string): Promise<Reply> {
  return resetQuestion(await context.settings.get(guildId), sayIn(context.locale));
}

export const resetButtons: Readonly<Record<string, ButtonHandler>> = {
  [resetCodec.key('reset-yes')]: {
    defer: () => 'update',
    async run(interaction, _args, context) {
      const guildId = settingsGuildOf(interaction);
      await context.settings.reset(guildId);
      return messageReply({
        content: sayIn(context.locale)('settings.reset.done'),
        embeds: [],
        components: [],
      });
    },
  },
  [resetCodec.key('reset-no')]: {
    defer: () => 'update',
    run: async (_interaction, _args, context) =>
      messageReply({
        content: sayIn(context.locale)('settings.reset.cancelled'),
        embeds: [],
        components: [],
      }),
  },
};
