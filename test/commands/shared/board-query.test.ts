/**
 * The query a search sends (commands/shared/safety.ts `boardQuery`): exactly `safeSearchQuery` when no
 * community tag is hidden; with hidden tags, the member's query in brackets (so an `OR` cannot swallow the
 * exclusions), made literal where its brackets could escape, `safe` outside age-restricted channels, and
 * each excluded tag quoted (quotes and backslashes escaped by `quoteTag`). The board's reading is checked
 * with the local board's parser (test/fakes/philomena/query.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boardQuery, safeSearchQuery } from '../../../commands/shared/safety.js';
import {
  QUERY_EXCLUSIONS_MAX,
  type ContentRules,
  type RuleLayer,
  type TagRule,
} from '../../../src/render/content-rules.js';
import { DEFAULT_FLOOR } from '../../../src/render/floor.js';
import { parseQuery, QueryError, type QueryNode } from '../../fakes/philomena/query.js';

const rule = (tag: string, layer: RuleLayer = 'server'): TagRule => ({ tag, layer, ratings: 'any' });
const hiding = (...tags: string[]): ContentRules => ({
  hidden: [...DEFAULT_FLOOR, ...tags.map((t) => rule(t))],
});
const plain = (rules: ContentRules) => ({ ageRestricted: false, rules });

/** Pieces of hostile queries: grouping, quotes, escapes, every operator. */
const piece = fc.constantFrom(
  '(',
  ')',
  '"',
  '\\',
  ' ',
  'a',
  'pony',
  ',',
  ' OR ',
  ' || ',
  ' AND ',
  ' && ',
  'NOT ',
  '-',
  '!',
  '^2',
  'explicit',
  '\\(',
  '\\)',
  '"a b"',
  'safe',
);
const hostileQuery = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(''));

describe('boardQuery without exclusions', () => {
  it('GIVEN only the floor (and spoilered or not-safe community rules) THEN exactly safeSearchQuery', () => {
    const floorOnly: ContentRules = {
      hidden: [...DEFAULT_FLOOR, { tag: 'filly', layer: 'server', ratings: 'not-safe' }],
      spoilered: [rule('gore')],
    };
    fc.assert(
      fc.property(hostileQuery, fc.boolean(), (query, ageRestricted) => {
        expect(boardQuery(query, { ageRestricted, rules: floorOnly })).toBe(
          safeSearchQuery(query, ageRestricted),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('boardQuery with exclusions', () => {
  it.each<[string, string, boolean, string]>([
    ['a plain query', 'pony', false, 'safe, -"gore", (pony)'],
    ['a plain query, age-restricted', 'pony', true, '-"gore", (pony)'],
    ['an empty query', '  ', false, 'safe, -"gore"'],
    ['an empty query, age-restricted', '', true, '-"gore"'],
    ['an OR', 'explicit OR pony', false, 'safe, -"gore", (explicit OR pony)'],
    ['an OR, age-restricted', 'gore OR pony', true, '-"gore", (gore OR pony)'],
    ['balanced brackets', '(a OR b), c', true, '-"gore", ((a OR b), c)'],
    ['escaping brackets', 'pony) OR (gore', false, 'safe, -"gore", (pony\\) OR \\(gore)'],
    ['escaping brackets, age-restricted', 'pony) OR (gore', true, '-"gore", (pony\\) OR \\(gore)'],
    ['a trailing backslash', 'a \\', true, '-"gore", (a \\\\)'],
    ['one quoted tag with brackets', '"fluttershy (g4)"', false, 'safe, -"gore", ("fluttershy (g4)")'],
    ['a quote left open', 'foo "bar', false, 'safe, -"gore", (foo "bar)'],
  ])(
    'GIVEN %s THEN the member’s query is bracketed and the exclusions stay outside',
    (_w, query, age, expected) => {
      expect(boardQuery(query, { ageRestricted: age, rules: hiding('gore') })).toBe(expected);
    },
  );

  it('GIVEN tag names with quotes and backslashes THEN each is one quoted term, escaped', () => {
    const q = boardQuery('pony', plain(hiding('say "hi"', 'back\\slash', 'oc:x (y)')));
    expect(q).toBe('safe, -"say \\"hi\\"", -"back\\\\slash", -"oc:x (y)", (pony)');
    const tree = parseQuery(q);
    expect(tree).toEqual({
      kind: 'and',
      children: [
        { kind: 'term', text: 'safe', quoted: false },
        { kind: 'not', child: { kind: 'term', text: 'say "hi"', quoted: true } },
        { kind: 'not', child: { kind: 'term', text: 'back\\slash', quoted: true } },
        { kind: 'not', child: { kind: 'term', text: 'oc:x (y)', quoted: true } },
        { kind: 'term', text: 'pony', quoted: false },
      ],
    });
  });

  it('GIVEN more hidden tags than the bound THEN the query holds QUERY_EXCLUSIONS_MAX exclusions, each once', () => {
    const tags = Array.from({ length: 200 }, (_, i) => `tag ${i}`);
    const rules: ContentRules = {
      hidden: [
        ...DEFAULT_FLOOR,
        ...tags.map((t) => rule(t)),
        ...tags.slice(0, 5).map((t) => rule(t, 'member')),
      ],
    };
    const q = boardQuery('pony', plain(rules));
    const excluded = q.match(/-"[^"]*"/g) ?? [];
    expect(excluded).toHaveLength(QUERY_EXCLUSIONS_MAX);
    expect(new Set(excluded).size).toBe(QUERY_EXCLUSIONS_MAX);
    // The floor's tags never travel: the board keeps those images out itself.
    for (const floor of DEFAULT_FLOOR) expect(q).not.toContain(`"${floor.tag}"`);
  });

  /** The top-level conjuncts of a tree. */
  const conjuncts = (tree: QueryNode): readonly QueryNode[] => (tree.kind === 'and' ? tree.children : [tree]);

  it.each([false, true])(
    'GIVEN any query (age-restricted %s) THEN the board reads `safe` and every exclusion as top-level conjuncts, or refuses the query',
    (ageRestricted) => {
      const tags = ['gore', 'oc:x (y)', 'say "hi"', 'a) OR (b'];
      fc.assert(
        fc.property(hostileQuery, fc.subarray(tags, { minLength: 1 }), (query, hidden) => {
          const q = boardQuery(query, { ageRestricted, rules: hiding(...hidden) });
          let tree: QueryNode;
          try {
            tree = parseQuery(q);
          } catch (error) {
            if (error instanceof QueryError) return; // a 400: nothing is shown
            throw error;
          }
          const top = conjuncts(tree);
          if (!ageRestricted) expect(top).toContainEqual({ kind: 'term', text: 'safe', quoted: false });
          for (const tag of hidden) {
            expect(top).toContainEqual({ kind: 'not', child: { kind: 'term', text: tag, quoted: true } });
          }
        }),
        { numRuns: 5000 },
      );
    },
  );
});
