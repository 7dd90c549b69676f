/**
 * Changing a layer's tag lists (a server's, a channel's, a member's): the names as typed, checked with the
 * board for what is added (tag-lists.ts: aliases stored as their targets, unknown names refused with
 * suggestions), then one change of the two lists of that layer, and the answer saying what happened.
 *
 * A tag is in at most one list of a layer: hiding a spoilered tag moves it to the hidden list, and the
 * other way round; `unhide` takes a tag out of both.
 */
import type { Site } from '../../src/philomena/sites.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import { neutraliseMentions, truncate } from '../../src/render/index.js';
import { checkTagNames, mergeTagList, removeFromTagList, tagCheckNotes, TAG_LIST_MAX } from './tag-lists.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { normaliseTagName } from '../../src/render/content-rules.js';
import { sayEnglish, type Say } from './say.js';

/** What can be done to a layer's lists. */
export type TagListAction = 'hide' | 'unhide' | 'spoiler';

/** A layer's two lists. */
export interface LayerLists {
  readonly hidden: readonly string[];
  readonly spoilered: readonly string[];
}

/** Names as typed in a `tags:` option: separated by commas (no tag name holds one). */
function splitTagNames(raw: string): string[] {
  return raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The names to add, as the board names them, and what the check has to say besides. */
export interface CheckedNames {
  readonly names: readonly string[];
  readonly notes: readonly string[];
}

/** What a check needs: the board, where the answer goes, and the member's words for its notes. */
interface TagCheckDeps {
  readonly registry: ClientRegistry;
  readonly ageRestricted: boolean;
  /** The notes' language (English by default). */
  readonly say?: Say;
}

/**
 * The names of `raw` as they will be stored: checked with `site`'s board (each board call through the
 * client: cache, coalescing, budget). Refuses, with the check's notes, when not one name is a tag.
 */
export async function checkedNames(raw: string, site: Site, deps: TagCheckDeps): Promise<CheckedNames> {
  const given = splitTagNames(raw);
  if (given.length === 0) {
    throw new UserFacingError('tags.none-given', 'Give one or more tag names, separated by commas.');
  }
  const check = await checkTagNames(deps.registry.client(site), given, { ageRestricted: deps.ageRestricted });
  const notes = tagCheckNotes(check, deps.say);
  const names = check.accepted.map((tag) => tag.name);
  if (names.length === 0) {
    throw new UserFacingError(
      'tags.none-accepted',
      ['Nothing was changed: none of those is a tag.', ...notes].join('\n'),
      // The notes whole (one a line): a translation puts them after its own sentence.
      { params: { notes: notes.join('\n') } },
    );
  }
  return { names, notes };
}

/**
 * The names of `raw` to take out of `lists`, as they are stored: a name in the lists as given, else the tag
 * the board stores it as (an alias was stored as its target, so `gory` takes out `gore`). Only names in
 * neither list are looked up, so a tag the board no longer knows can still be taken out; when the board
 * cannot answer, those names are left as given (taking out is never refused for the board's sake).
 */
export async function unhideNames(
  raw: string,
  lists: LayerLists,
  site: Site,
  deps: TagCheckDeps,
): Promise<CheckedNames> {
  const given = splitTagNames(raw).map(normaliseTagName);
  const present = new Set([...lists.hidden, ...lists.spoilered].map(normaliseTagName));
  const missing = given.filter((name) => !present.has(name));
  if (missing.length === 0) return { names: given, notes: [] };
  const check = await checkTagNames(deps.registry.client(site), missing, {
    ageRestricted: deps.ageRestricted,
  }).catch(() => undefined);
  if (check === undefined) return { names: given, notes: [] };
  const stored = new Map<string, string>();
  for (const tag of check.accepted) for (const via of tag.via) stored.set(via.given, tag.name);
  // What the answer says of the names followed; names the board does not know are in "Not in the lists".
  const notes = tagCheckNotes({ ...check, unknown: [], refused: [] }, deps.say);
  return { names: [...new Set(given.map((name) => stored.get(name) ?? name))], notes };
}

/** A layer's lists after `action`, and the names it changed or found already so. */
export interface ListsChange {
  readonly lists: LayerLists;
  readonly changed: readonly string[];
  readonly unchanged: readonly string[];
}

/**
 * `lists` after `action` on `names`. Throws the `tags.list-full` UserFacingError, changing nothing, when a
 * list would hold more than TAG_LIST_MAX tags.
 */
export function changeLists(lists: LayerLists, action: TagListAction, names: readonly string[]): ListsChange {
  if (action === 'unhide') {
    const hidden = removeFromTagList(lists.hidden, names);
    const spoilered = removeFromTagList(lists.spoilered, names);
    const changed = [...new Set([...hidden.changed, ...spoilered.changed])];
    return {
      lists: { hidden: hidden.list, spoilered: spoilered.list },
      changed,
      unchanged: hidden.unchanged.filter((name) => !changed.includes(name)),
    };
  }
  const hiding = action === 'hide';
  const added = mergeTagList(hiding ? lists.hidden : lists.spoilered, names, TAG_LIST_MAX);
  // A tag moved from the other list counts as changed.
  const moved = removeFromTagList(hiding ? lists.spoilered : lists.hidden, names);
  const changed = [...new Set([...added.changed, ...moved.changed])];
  return {
    lists: hiding
      ? { hidden: added.list, spoilered: moved.list }
      : { hidden: moved.list, spoilered: added.list },
    changed,
    unchanged: added.unchanged.filter((name) => !changed.includes(name)),
  };
}

/** Tag names in `code`, each cut short, joined; "and N more" (in `say`'s language) past `max` characters. */
export function tagNamesLine(names: readonly string[], max = 900, say: Say = sayEnglish): string {
  const out: string[] = [];
  let length = 0;
  for (const [index, name] of names.entries()) {
    const code = `\`${neutraliseMentions(truncate(name, 60).replaceAll('`', 'ˋ'))}\``;
    if (length + code.length + 2 > max) {
      out.push(say('tags.names.more', { count: names.length - index }));
      break;
    }
    out.push(code);
    length += code.length + 2;
  }
  return out.join(', ');
}

/** The catalogue keys of what a change did, and of what already was so (`{names}`; `{where}`, `{channel}`). */
const DONE: Readonly<Record<TagListAction, string>> = {
  hide: 'tags.change.hidden',
  spoiler: 'tags.change.spoilered',
  unhide: 'tags.change.unhidden',
};
const ALREADY: Readonly<Record<TagListAction, string>> = {
  hide: 'tags.change.already-hidden',
  spoiler: 'tags.change.already-spoilered',
  unhide: 'tags.change.not-in-lists',
};

/** Where a change happened: the server, or one of its channels (a whole sentence per case in the catalogue). */
type ChangeWhere = { readonly kind: 'server' } | { readonly kind: 'channel'; readonly channelId: string };

/**
 * What the answer to a change says, in `say`'s language: what changed where, what already was, the sizes,
 * the check's notes.
 */
export function listsChangeText(
  change: ListsChange,
  action: TagListAction,
  where: ChangeWhere,
  notes: readonly string[] = [],
  say: Say = sayEnglish,
): string {
  const place =
    where.kind === 'server'
      ? { where: 'server', channel: '' }
      : { where: 'channel', channel: `<#${where.channelId}>` };
  const lines: string[] = [];
  lines.push(
    change.changed.length === 0
      ? say('tags.change.nothing', place)
      : say(DONE[action], { ...place, names: tagNamesLine(change.changed, 900, say) }),
  );
  if (change.unchanged.length > 0) {
    lines.push(say(ALREADY[action], { names: tagNamesLine(change.unchanged, 400, say) }));
  }
  lines.push(
    say('tags.change.sizes', {
      hidden: change.lists.hidden.length,
      spoilered: change.lists.spoilered.length,
      max: TAG_LIST_MAX,
    }),
  );
  return [...lines, ...notes].join('\n');
}
