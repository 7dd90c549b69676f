/**
 * `/settings tags hide|unhide|spoiler|preset`: the server's own hidden and spoilered tags, or a channel's
 * (`channel:`) on top of the server's (issue 20 §1, layers 4 and 5). Hidden: no picture, tags or
 * description, the hidden card instead; spoilered: the picture behind Discord's spoiler. Names are checked
 * with the board of the scope's site as they are added (commands/shared/tag-changes.ts); a preset adds its
 * documented set to the hidden list without a board call (commands/shared/tag-presets.ts).
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import type { CommandContext } from '../shared/context.js';
import {
  changeLists,
  checkedNames,
  listsChangeText,
  unhideNames,
  type ListsChange,
  type TagListAction,
} from '../shared/tag-changes.js';
import { sayIn } from '../shared/say.js';
import { TAG_PRESETS, tagPreset } from '../shared/tag-presets.js';
import { textReply } from '../shared/text-reply.js';
import { listsOf, SERVER_SCOPE, SETTINGS_CHANNEL_TYPES, siteOf, withLists, type Scope } from './scope.js';

/** The scope a `channel:` option names: the server when it is not given. */
export function scopeOption(interaction: Incoming<ChatInputCommandInteraction>): Scope {
  const channel = interaction.options.getChannel('channel');
  if (channel === null) return SERVER_SCOPE;
  if (!SETTINGS_CHANNEL_TYPES.some((type) => type === channel.type)) {
    throw new UserFacingError(
      'settings.channel-kind',
      'Pick a text, announcement, forum or voice channel (a thread follows its channel).',
    );
  }
  return { kind: 'channel', channelId: channel.id };
}

/**
 * `action` on the names of `raw` in `scope`, written atomically, answered with what changed. Names added
 * are checked with the board first (nothing is written when none is a tag); removed ones are not.
 */
export async function changeScopeTags(
  context: CommandContext,
  guildId: string,
  scope: Scope,
  action: TagListAction,
  raw: string,
): Promise<Reply> {
  const record = await context.settings.get(guildId);
  const site = siteOf(record, scope, context.sites);
  const say = sayIn(context.locale);
  const deps = { registry: context.registry, ageRestricted: context.view.ageRestricted, say };
  const checked =
    action === 'unhide'
      ? await unhideNames(raw, listsOf(record, scope), site, deps)
      : await checkedNames(raw, site, deps);
  if (checked.names.length === 0) {
    throw new UserFacingError('tags.none-given', 'Give one or more tag names, separated by commas.');
  }
  let change: ListsChange | undefined;
  await context.settings.update(guildId, (current) => {
    change = changeLists(listsOf(current, scope), action, checked.names);
    return withLists(current, scope, change.lists);
  });
  if (change === undefined) throw new Error('the settings update ran no change');
  return textReply(listsChangeText(change, action, scope, checked.notes, say));
}

/** A preset's tags added to the scope's hidden list. */
export async function addPreset(
  context: CommandContext,
  guildId: string,
  scope: Scope,
  presetId: string,
): Promise<Reply> {
  const preset = tagPreset(presetId);
  if (preset === undefined) {
    throw new UserFacingError('settings.unknown-preset', 'Unknown preset: pick one from the list.');
  }
  let change: ListsChange | undefined;
  await context.settings.update(guildId, (current) => {
    change = changeLists(listsOf(current, scope), 'hide', preset.tags);
    return withLists(current, scope, change.lists);
  });
  if (change === undefined) throw new Error('the settings update ran no change');
  const say = sayIn(context.locale);
  return textReply(
    [
      say('settings.preset.added', {
        title: say(`command.settings.tags.preset.preset.choice.${preset.id}`),
        description: say(`settings.preset.description.${preset.id}`),
      }),
      listsChangeText(change, 'hide', scope, [], say),
    ].join('\n'),
  );
}

/** `/settings tags <action>`, once the runtime checked the member may change settings. */
export function runTagsSubcommand(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
): Promise<Reply> {
  const action = interaction.options.getSubcommand(true);
  const scope = scopeOption(interaction);
  if (action === 'preset') {
    return addPreset(context, guildId, scope, interaction.options.getString('preset', true));
  }
  if (action !== 'hide' && action !== 'unhide' && action !== 'spoiler') {
    throw new UserFacingError('settings.unknown-setting', 'Unknown setting.');
  }
  return changeScopeTags(context, guildId, scope, action, interaction.options.getString('tags', true));
}

/** The `preset:` option's choices. */
export const PRESET_CHOICES = TAG_PRESETS.map((preset) => ({ name: preset.title, value: preset.id }));
