/**
 * `/me filter`: the member's own board filter per site (issue 20 §3, issue 22 §2), applied to what they ask
 * for where neither the channel nor the server chose a filter for the site (commands/shared/view.ts).
 *
 * - Without a linked account on the site: a public or system filter, checked with the board exactly as
 *   `/settings filter` checks (commands/shared/board-filters.ts `usableFilter`); `reset:` goes back to the
 *   bot's default.
 * - With one (`/me link`): their own filters count too, private ones included (the key makes them usable,
 *   and they are theirs: ownership is read from `filters/user` with their key, never guessed from an id).
 *   With no option the command lists their own filters and the system ones; `reset:` goes back to the
 *   account's current filter, which the board applies when no `filter_id` is sent. The `filter_id`
 *   autocomplete offers their own filters, then the system ones.
 * - A key the board refuses on `filters/user` is dropped and said once (commands/shared/member-board.ts).
 */
import type { ApplicationCommandOptionChoiceData, AutocompleteInteraction } from 'discord.js';
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { MemberKeyRefusedError } from '../../src/errors.js';
import type { MessageParams } from '../../src/i18n/index.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Filter } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { describeFilter } from '../../src/render/filter-summary.js';
import { escapeInline, escapeMarkdown, MESSAGE_CONTENT_MAX, truncate } from '../../src/render/index.js';
import { filterTagNames, usableFilter } from '../shared/board-filters.js';
import type { CommandContext } from '../shared/context.js';
import { accountKeyRefused, dropKey } from '../shared/member-board.js';
import { CHOICE_TEXT_MAX } from '../shared/tag-suggestions.js';
import { textReply } from '../shared/text-reply.js';
import type { MemberSettings } from './member-settings.js';

type Say = (key: string, params?: MessageParams) => string;

/** Philomena's largest page: one page of a member's own filters (few members have more). */
const OWN_FILTERS_PAGE = 50;
/** Discord's most choices in one autocomplete answer. */
const CHOICES_MAX = 25;
/** A filter name's share of a list line. */
const NAME_MAX = 80;

/** The member client of `site` for `userId`, or undefined when they linked no key there. */
async function ownClient(
  site: Site,
  userId: string,
  context: CommandContext,
): Promise<PhilomenaClient | undefined> {
  const key = await context.memberKeys.keyFor(userId, site.id);
  return key === undefined
    ? undefined
    : context.registry.memberClient(site, { id: userId, key: key.reveal() });
}

/** The member's own filters on `site`; a key the board refuses is dropped and said. */
async function ownFilters(
  client: PhilomenaClient,
  site: Site,
  context: CommandContext,
): Promise<readonly Filter[]> {
  try {
    return (await client.userFilters({ perPage: OWN_FILTERS_PAGE })).items;
  } catch (error) {
    if (error instanceof MemberKeyRefusedError) {
      await dropKey(site, context.userId, context);
      throw accountKeyRefused(site);
    }
    throw error;
  }
}

/** `id` as the member may use it on `site`: one of their own (any), else a public or system one. */
async function chosenFilter(
  id: number,
  site: Site,
  own: readonly Filter[],
  context: CommandContext,
): Promise<Filter> {
  const mine = own.find((filter) => filter.id === id);
  if (mine !== undefined) return mine;
  try {
    return await usableFilter(id, site, context);
  } catch (error) {
    // Not theirs and not public: said without the advice to make it public (their own would have passed).
    if (error instanceof UserFacingError && error.id.startsWith('settings.filter-')) {
      const name = escapeMarkdown(site.name);
      throw new UserFacingError(
        'me.filter-not-usable',
        `${name} has no filter ${id} you may use: pick one of yours (\`/me filter\` lists them), a system or a public one.`,
        { params: { site: name, filter: id } },
      );
    }
    throw error;
  }
}

/** One filter as a list line: its name, its id, whether private, whether the member chose it. */
function filterLine(filter: Filter, chosen: number | undefined, say: Say): string {
  return say('me.filter.list.line', {
    name: escapeInline(truncate(filter.name, NAME_MAX)),
    id: String(filter.id),
    private: filter.public || filter.system ? 'no' : 'yes',
    chosen: filter.id === chosen ? 'yes' : 'no',
  });
}

/** `/me filter` with no option, for a linked member: their filters, the system ones, what applies. */
async function listFilters(
  client: PhilomenaClient,
  site: Site,
  chosen: number | undefined,
  context: CommandContext,
  say: Say,
): Promise<Reply> {
  const siteName = escapeMarkdown(site.name);
  const [own, system] = await Promise.all([
    ownFilters(client, site, context),
    client.systemFilters({ perPage: OWN_FILTERS_PAGE }).then((page) => page.items),
  ]);
  const lines = [
    chosen === undefined
      ? say('me.filter.list.now-account', { site: siteName })
      : say('me.filter.list.now-chosen', { site: siteName, filter: String(chosen) }),
    say('me.filter.where'),
    say('me.filter.list.own'),
    ...(own.length === 0 ? [say('me.filter.list.own-none')] : own.map((f) => filterLine(f, chosen, say))),
    say('me.filter.list.system'),
    ...system.map((f) => filterLine(f, chosen, say)),
    say('me.filter.list.hint'),
  ];
  return textReply(truncate(lines.join('\n'), MESSAGE_CONTENT_MAX));
}

/** `/me filter` for `site` (see the header). */
export async function memberFilter(
  interaction: Incoming<ChatInputCommandInteraction>,
  site: Site,
  context: CommandContext,
  members: MemberSettings,
  say: Say,
): Promise<Reply> {
  const userId = interaction.user.id;
  const id = interaction.options.getInteger('filter_id');
  const reset = interaction.options.getBoolean('reset') === true;
  const siteName = escapeMarkdown(site.name);
  const where = say('me.filter.where');
  if (id !== null && reset) {
    throw new UserFacingError(
      'me.filter-and-reset',
      'Give either a `filter_id` to use or `reset:True` to clear yours, not both.',
    );
  }
  const client = await ownClient(site, userId, context);
  if (reset) {
    await members.setFilter(userId, site.id, undefined);
    return textReply(
      say(client === undefined ? 'me.filter.cleared' : 'me.filter.cleared-linked', { site: siteName }),
    );
  }
  if (id === null) {
    const own = (await members.get(userId)).filters[site.id];
    if (client !== undefined) return listFilters(client, site, own, context, say);
    // A filter id is a name, not a quantity: a string, as the board's URL writes it, never "12,345".
    return textReply(
      own === undefined
        ? `${say('me.filter.none', { site: siteName })} ${where}`
        : `${say('me.filter.current', { site: siteName, filter: String(own) })} ${where} ${say('me.filter.clear-hint')}`,
    );
  }
  const chosen =
    client === undefined
      ? await usableFilter(id, site, context)
      : await chosenFilter(id, site, await ownFilters(client, site, context), context);
  await members.setFilter(userId, site.id, chosen.id);
  const names = await filterTagNames(client ?? context.registry.client(site), chosen, context.logger);
  return textReply(
    `${say('me.filter.set', { site: siteName })} ${where}\n${describeFilter(chosen, site, names, { say })}`,
  );
}

/** A choice's label within Discord's 100 characters, the name cut first. */
function choiceOf(filter: Filter, key: string, say: Say): ApplicationCommandOptionChoiceData {
  const label = (name: string) => say(key, { name, id: String(filter.id) });
  const room = CHOICE_TEXT_MAX - label('').length;
  return {
    name: truncate(label(truncate(filter.name, Math.max(1, room))), CHOICE_TEXT_MAX),
    value: filter.id,
  };
}

/**
 * The `filter_id` choices for `site`: the member's own filters (with their key), then the system ones,
 * those whose name or id starts with what was typed first. Nothing from the board when it fails: an
 * autocomplete answers empty rather than late.
 */
export async function filterChoices(
  interaction: Incoming<AutocompleteInteraction>,
  site: Site,
  context: CommandContext & { readonly signal: AbortSignal },
  say: Say,
): Promise<ApplicationCommandOptionChoiceData[]> {
  const typed = String(interaction.options.getFocused()).trim().toLowerCase();
  const call = { signal: context.signal, perPage: OWN_FILTERS_PAGE };
  const client = await ownClient(site, interaction.user.id, context).catch(() => undefined);
  const [own, system] = await Promise.all([
    client === undefined
      ? Promise.resolve([])
      : client.userFilters(call).then(
          (page) => page.items,
          () => [],
        ),
    context.registry
      .client(site)
      .systemFilters(call)
      .then(
        (page) => page.items,
        () => [],
      ),
  ]);
  const matches = (filter: Filter) =>
    typed === '' || filter.name.toLowerCase().includes(typed) || String(filter.id).startsWith(typed);
  return [
    ...own
      .filter(matches)
      .map((f) => choiceOf(f, f.public ? 'me.filter.choice.own' : 'me.filter.choice.own-private', say)),
    ...system.filter(matches).map((f) => choiceOf(f, 'me.filter.choice.system', say)),
  ].slice(0, CHOICES_MAX);
}
