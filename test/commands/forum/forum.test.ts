/**
 * What /forum and /comments do that needs no board: the query a `forum:` narrowing sends, which forum a
 * typed name means, the autocomplete choices, and the custom ids of their paging buttons (what is written
 * reads back, within Discord's 100 characters).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findForum, forumChoices, postQuery, postSearch } from '../../../commands/forum/forum.js';
import { commentSearch } from '../../../commands/comments/comments.js';
import type { PagingAction } from '../../../commands/shared/image-paging.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { decodeCustomId, siteCode } from '../../../src/discord/custom-id.js';
import type { Forum } from '../../../src/philomena/schemas.js';
import { knownSite, type Site } from '../../../src/philomena/sites.js';

function site(id: string): Site {
  const found = knownSite(id);
  if (found === undefined) throw new Error(`no site ${id}`);
  return found;
}

const derpibooru = site('derpibooru');
const sites = createSiteDirectory({ defaultSite: derpibooru, defaultFilterId: undefined });

const forum = (name: string, short: string): Forum => ({
  name,
  short_name: short,
  description: '',
  topic_count: 1,
  post_count: 1,
});
const FORUMS = [
  forum('Art Chat', 'art'),
  forum('General Discussion', 'dis'),
  forum('Pony Discussion', 'pony'),
];

describe('postQuery', () => {
  it('GIVEN no forum THEN the query as typed', () => {
    expect(postQuery({ query: 'commissions', owner: '1' })).toBe('commissions');
  });

  it('GIVEN a forum THEN the query bracketed and the whole forum term quoted, as the board reads quotes', () => {
    expect(postQuery({ query: 'a OR b', owner: '1', forum: { short: 'dis', name: 'General' } })).toBe(
      '(a OR b), "forum:dis"',
    );
    expect(postQuery({ query: 'x', owner: '1', forum: { short: 'we"ird\\', name: 'W' } })).toBe(
      '(x), "forum:we\\"ird\\\\"',
    );
  });
});

describe('findForum and forumChoices', () => {
  it('GIVEN a short name or a name in any case THEN that forum; GIVEN neither THEN none', () => {
    expect(findForum(FORUMS, 'DIS')?.short_name).toBe('dis');
    expect(findForum(FORUMS, '  general discussion ')?.short_name).toBe('dis');
    expect(findForum(FORUMS, 'discussion')).toBeUndefined();
  });

  it('GIVEN part of a name THEN every forum holding it, named with its short name, the short name as value', () => {
    expect(forumChoices(FORUMS, 'disc')).toEqual([
      { name: 'General Discussion (dis)', value: 'dis' },
      { name: 'Pony Discussion (pony)', value: 'pony' },
    ]);
    expect(forumChoices(FORUMS, '')).toHaveLength(3);
  });

  it('GIVEN many forums with long names THEN at most 25 choices, each within 100 characters', () => {
    const many = Array.from({ length: 40 }, (_, i) => forum(`Forum ${'x'.repeat(200)} ${i}`, `f${i}`));
    const choices = forumChoices(many, 'forum');
    expect(choices).toHaveLength(25);
    for (const choice of choices) expect(choice.name.length).toBeLessThanOrEqual(100);
  });
});

describe('the paging buttons of /comments and /forum', () => {
  it('GIVEN any page THEN its custom id fits and decodes to the same page, in each command’s own namespace', () => {
    const actions: PagingAction[] = ['prev', 'next', 'rand', 'pub'];
    fc.assert(
      fc.property(
        fc.record({
          token: fc.stringMatching(/^[A-Za-z0-9_-]{8}$/),
          page: fc.integer({ min: 1, max: 10_000_000 }),
          total: fc.integer({ min: 1, max: 10_000_000 }),
          owner: fc.stringMatching(/^\d{17,20}$/),
          issuedAt: fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
          private: fc.boolean(),
        }),
        (fields) => {
          for (const [kind, namespace] of [
            [commentSearch, 'cmt'],
            [postSearch, 'frm'],
          ] as const) {
            for (const action of actions) {
              const id = kind.codec.encode(action, { ...fields, site: siteCode(derpibooru) });
              expect(id.length).toBeLessThanOrEqual(100);
              const decoded = decodeCustomId(id);
              expect(decoded?.key).toBe(`${namespace}:${action}`);
              const back = kind.codec.decodeWithSite(decoded?.args ?? [], sites.all, derpibooru);
              expect(back).toEqual({ ...fields, issuedAt: back?.issuedAt, site: derpibooru });
              expect(Math.abs((back?.issuedAt ?? 0) - fields.issuedAt)).toBeLessThan(1_000);
            }
          }
        },
      ),
    );
  });
});
