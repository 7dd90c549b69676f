/**
 * Which board client a /search goes through (issue 22 §2). A query with a `my:` term (my-terms.ts) reads
 * the searcher's own lists, so it goes with their linked key for the view's site, through
 * `registry.memberClient` (their own cache space, their budget class; src/philomena/client/member.ts);
 * any other search goes through the site's shared client, without a key, as before.
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
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { CommandContext } from '../shared/context.js';
import { hasMyTerm } from './my-terms.js';

export interface SearchAccess {
  /** The client of this search: the member's for a `my:` search, else the site's shared one. */
  readonly client: PhilomenaClient;
  /** Whether the search reads the member's own account. */
  readonly member: boolean;
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

/** The client for searching `query` on `site` as `userId`; throws `search.link-needed` without a key. */
export async function searchAccess(
  query: string,
  site: Site,
  userId: string,
  context: CommandContext,
): Promise<SearchAccess> {
  if (!hasMyTerm(query)) return { client: context.registry.client(site), member: false };
  const key = await context.memberKeys.keyFor(userId, site.id);
  if (key === undefined) throw linkNeeded(site);
  return { client: context.registry.memberClient(site, { id: userId, key: key.reveal() }), member: true };
}

/** Drops the member's key for `site` and the answers fetched with it; the error that tells them. */
async function dropKey(site: Site, userId: string, context: CommandContext): Promise<UserFacingError> {
  await context.memberKeys.unlink(userId, site.id);
  context.registry.forgetMember(userId);
  context.logger.info({ userId, siteId: site.id }, "the board refused a member's key: it was unlinked");
  return keyRefused(site);
}

/** Whether the board still takes the member's key; a refusal drops it and throws `search.key-refused`. */
async function confirmKey(access: SearchAccess, site: Site, userId: string, context: CommandContext) {
  try {
    // Fresh: linking the key cached this very answer from when the board still took it.
    await access.client.userFilters({ fresh: true });
  } catch (error) {
    if (error instanceof MemberKeyRefusedError) throw await dropKey(site, userId, context);
    // Anything else (the board busy or down) leaves the search's own outcome standing.
  }
}

/**
 * Runs `work` (one page of a search through `access`). For a member search, a key the board refuses is
 * dropped and said, and an empty or refused search first checks the key (see the header).
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
    if (error instanceof MemberKeyRefusedError) throw await dropKey(site, userId, context);
    if (error instanceof BadQueryError) await confirmKey(access, site, userId, context);
    throw error;
  }
  if (result === undefined) await confirmKey(access, site, userId, context);
  return result;
}
