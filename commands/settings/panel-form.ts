/**
 * The forms of `/settings panel` (modals with one labelled text input): tags to hide, spoiler or unhide,
 * and the filter id, in the language of the member who pressed the button (it opens before any I/O, so
 * from the interaction's locale). The title names the scope; Discord cuts nothing, so it is kept to 45.
 */
import { ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData } from 'discord.js';
import type { Say } from '../shared/say.js';
import type { Scope } from './scope.js';

/** What a form asks for. */
export type FormKind = 'hide' | 'spoiler' | 'unhide' | 'filter';

/** Discord's bounds on a modal's title and on a label's text and description. */
const TITLE_MAX = 45;
const LABEL_MAX = 45;
const DESCRIPTION_MAX = 100;

/** The form for `kind` in `scope`; `customId` is the submit's id (it carries the scope and the kind). */
export function form(
  scope: Scope,
  kind: FormKind,
  customId: string,
  say: Say,
): APIModalInteractionResponseCallbackData {
  const input =
    kind === 'filter'
      ? {
          label: say('settings.panel.form.filter-id').slice(0, LABEL_MAX),
          description: say('settings.panel.form.filter-id.description').slice(0, DESCRIPTION_MAX),
          component: {
            type: ComponentType.TextInput as const,
            custom_id: 'value',
            style: TextInputStyle.Short,
            min_length: 1,
            max_length: 12,
            required: true,
          },
        }
      : {
          label: say('settings.panel.form.tags').slice(0, LABEL_MAX),
          description: say(
            kind === 'unhide'
              ? 'settings.panel.form.tags.description.unhide'
              : 'settings.panel.form.tags.description',
          ).slice(0, DESCRIPTION_MAX),
          component: {
            type: ComponentType.TextInput as const,
            custom_id: 'value',
            style: TextInputStyle.Paragraph,
            min_length: 1,
            max_length: 2000,
            required: true,
            // Board words: tag names stay as the board writes them.
            placeholder: 'ai generated, gore',
          },
        };
  return {
    custom_id: customId,
    title: say(`settings.panel.form.title.${kind}`, { where: scope.kind }).slice(0, TITLE_MAX),
    components: [{ type: ComponentType.Label, ...input }],
  };
}
