/**
 * `/settings channel channel: [filter_id:] [site:] [unfurl:] [references:] [reset:]`: one channel's own
 * settings, on top of the server's (issue 20 §3). Unset means the server's; `reset:True` takes everything
 * the channel set away (its tags too) in one write. With no other option it shows what the channel sets.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeMarkdown } from '../../src/render/index.js';
import { filterTagNames, usableFilter } from '../shared/board-filters.js';
import type { CommandContext } from '../shared/context.js';
import type { ChannelSettingsRecord } from '../shared/guild-settings.js';
import { sayIn } from '../shared/say.js';
import { DEFAULT_SITE_CHOICE } from '../shared/site-directory.js';
import { textReply } from '../shared/text-reply.js';
import { siteOf, withChannel, withoutChannel, type Scope } from './scope.js';
import { scopeOption } from './tags.js';
import { describeScope } from './show.js';

/** The `site:` choice of /settings channel that gives the channel back the server's site. */
export const SERVER_SITE_CHOICE = 'server';

/** What one `/settings channel` asks to change; absent means left as it is. */
export interface ChannelChange {
  /** A site id, or null for the server's site. */
  readonly siteId?: string | null;
  readonly filterId?: number;
  readonly unfurl?: boolean;
  readonly references?: boolean;
}

/** The channel's settings after `change` (the filter is for `siteId`, the channel's site after the change). */
function applied(
  current: ChannelSettingsRecord,
  change: ChannelChange,
  siteId: string,
): ChannelSettingsRecord {
  const { siteId: _site, ...rest } = current;
  const site = change.siteId === undefined ? current.siteId : (change.siteId ?? undefined);
  return {
    ...rest,
    ...(site === undefined ? {} : { siteId: site }),
    ...(change.filterId === undefined ? {} : { filters: { ...current.filters, [siteId]: change.filterId } }),
    ...(change.unfurl === undefined ? {} : { unfurl: change.unfurl }),
    ...(change.references === undefined ? {} : { imageReferences: change.references }),
  };
}

/**
 * Applies `change` to the channel's settings in one atomic write and says what the channel now sets. A
 * filter is checked with the board first (public or system, on the channel's site after the change).
 */
export async function changeChannel(
  context: CommandContext,
  guildId: string,
  scope: Extract<Scope, { kind: 'channel' }>,
  change: ChannelChange,
): Promise<Reply> {
  const record = await context.settings.get(guildId);
  let site = siteOf(record, scope, context.sites);
  if (change.siteId !== undefined) {
    const chosen =
      change.siteId === null
        ? siteOf({ ...record, channels: {} }, scope, context.sites)
        : context.sites.byId(change.siteId);
    if (chosen === undefined)
      throw new UserFacingError('settings.unknown-site', 'That site is not supported.');
    site = chosen;
  }
  const say = sayIn(context.locale);
  const lines: string[] = [];
  if (change.filterId !== undefined) {
    const filter = await usableFilter(change.filterId, site, context);
    const names = await filterTagNames(context.registry.client(site), filter, context.logger);
    lines.push(
      say('settings.channel.filter-heading', {
        site: escapeMarkdown(site.name),
        channel: `<#${scope.channelId}>`,
      }),
      describeFilter(filter, site, names, { say }),
    );
  }
  const next = await context.settings.update(guildId, (current) =>
    withChannel(current, scope.channelId, (own) => applied(own, change, site.id)),
  );
  return textReply(
    [...describeScope(next, scope, context.sites, say, context.guildLocale), ...lines].join('\n'),
  );
}

/** `/settings channel`, once the runtime checked the member may change settings. */
export async function runChannelSubcommand(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
): Promise<Reply> {
  const scope = scopeOption(interaction);
  if (scope.kind !== 'channel') {
    throw new UserFacingError('settings.channel-missing', 'Pick the channel to change with `channel:`.');
  }
  const { options } = interaction;
  if (options.getBoolean('reset') === true) {
    await context.settings.update(guildId, (current) => withoutChannel(current, scope.channelId));
    return textReply(sayIn(context.locale)('settings.channel.reset', { channel: `<#${scope.channelId}>` }));
  }
  const site = options.getString('site');
  const change: ChannelChange = {
    ...(site === null
      ? {}
      : {
          siteId:
            site === SERVER_SITE_CHOICE
              ? null
              : site === DEFAULT_SITE_CHOICE
                ? context.sites.defaultSite.id
                : site,
        }),
    ...(options.getInteger('filter_id') === null ? {} : { filterId: options.getInteger('filter_id', true) }),
    ...(options.getBoolean('unfurl') === null ? {} : { unfurl: options.getBoolean('unfurl', true) }),
    ...(options.getBoolean('references') === null
      ? {}
      : { references: options.getBoolean('references', true) }),
  };
  if (Object.keys(change).length === 0) {
    const record = await context.settings.get(guildId);
    return textReply(
      describeScope(record, scope, context.sites, sayIn(context.locale), context.guildLocale).join('\n'),
    );
  }
  return changeChannel(context, guildId, scope, change);
}
