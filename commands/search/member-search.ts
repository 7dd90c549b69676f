/**
 * Which board client a /search goes through (issue 22 §2). Where the searcher's own account decides the
 * filter (commands/shared/member-board.ts: they linked the site, and neither the channel nor the server
 * chose a filter), every search of theirs goes with their key. Elsewhere a query with a `my:` term
 * (my-terms.ts) reads the searcher's own lists, so it goes with their linked key too, under the server's
 * filter, through `registry.memberClient` (their own cache space, their budget class;
 * src/philomena/client/member.ts); any other search goes through the site's shared client, without a key.
 *
 * - No linked key (or linking off): refused before any board request, telling the member to `/me link`;
 *   the `my:` term never reaches the board.
 * - Paging looks the key up again by the presser's id (only the searcher may page: paging.ts), so no key
 *   is ever in a custom id or the stored search state; a key unlinked meanwhile ends the paging the same way.
 * - The board does not refuse a wrong key on a search (docs/board-behaviour.md, "The API key": the request
 *   runs anonymously; Derpibooru reads `my:faves` as a plain tag and finds nothing, upstream answers 400).
 *   So when a member search finds nothing or is refused as a bad query, the key is checked once with
 *   `filters/user`; a `MemberKeyRefusedError` there (or anywhere) drops the key and tells the member, once:
 *   their next `my:` search asks them to link again.
 */
import { UserFacingError } from '../../src/discord/failures.js';
import { BadQueryError, MemberKeyRefusedError } from '../../src/errors.js';
import type { Site } from '../../src/philomena/sites.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { CommandContext } from '../shared/context.js';
import { accountKeyRefused, boardFor, dropKey, type Board } from '../shared/member-board.js';
import type { View } from '../shared/view.js';
import { hasMyTerm } from '../shared/my-terms.js';

/**
 * The client of this search and the view it reads under (`member`: the client carries the member's key),
 * and whether it reads the member's own lists (a `my:` term).
 */
export interface SearchAccess extends Board {
  readonly lists: boolean;
}

function linkNeeded(site: Site): UserFacingError {
  const name = escapeMarkdown(site.name);
  return new UserFacingError(
    'search.link-needed',
    `Searches with \`my:\` read your own ${name} account: link it first with \`/me link\`. Nothing was searched.`,
    { params: { site: name } },
  );
}

function keyRefused(site: Site): UserFacingError {
  const name = escapeMarkdown(site.name);
  return new UserFacingError(
    'search.key-refused',
    `${name} no longer accepts your linked key, so the bot deleted it. Link your account again with \`/me link\` to search with \`my:\`.`,
    { params: { site: name } },
  );
}

/**
 * The client for searching `query` under `view` as the member of `context`; throws `search.link-needed`
 * for a `my:` search without a linked key.
 */
export async function searchAccess(
  query: string,
  view: View,
  context: CommandContext,
): Promise<SearchAccess> {
  const board = await boardFor(context, view);
  const lists = hasMyTerm(query);
  if (!lists || board.member) return { ...board, lists };
  const key = await context.memberKeys.keyFor(context.userId, view.site.id);
  if (key === undefined) throw linkNeeded(view.site);
  const client = context.registry.memberClient(view.site, { id: context.userId, key: key.reveal() });
  return { client, view: board.view, member: true, lists };
}

/** Drops the member's key for `site`; the error that tells them, in the words of what they were doing. */
async function dropped(access: SearchAccess, site: Site, userId: string, context: CommandContext) {
  await dropKey(site, userId, context);
  return access.lists ? keyRefused(site) : accountKeyRefused(site);
}

/** Whether the board still takes the member's key; a refusal drops it and throws `search.key-refused`. */
async function confirmKey(access: SearchAccess, site: Site, userId: string, context: CommandContext) {
  try {
    // Fresh: linking the key cached this very answer from when the board still took it.
    await access.client.userFilters({ fresh: true });
  } catch (error) {
    if (error instanceof MemberKeyRefusedError) throw await dropped(access, site, userId, context);
    // Anything else (the board busy or down) leaves the search's own outcome standing.
  }
}

/**
 * Runs `work` (one page of a search through `access`). For a search with the member's key, a key the
 * board refuses is dropped and said, and an empty or refused `my:` search first checks the key (see the
 * header: a plain search through the member's account needs no such check, its answer stands either way).
 */
export async function searchWith<T>(
  access: SearchAccess,
  site: Site,
  userId: string,
  context: CommandContext,
  work: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!access.member) return work();
  let result: T | undefined;
  try {
    result = await work();
  } catch (error) {
    if (error instanceof MemberKeyRefusedError) throw await dropped(access, site, userId, context);
    if (access.lists && error instanceof BadQueryError) await confirmKey(access, site, userId, context);
    throw error;
  }
  if (access.lists && result === undefined) await confirmKey(access, site, userId, context);
  return result;
}
