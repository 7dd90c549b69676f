/**
 * The rules in layers as pure functions (src/render/content-rules.ts): which spoilered rule applies, which
 * hidden tags a search leaves out in its query (member, then channel, then server; the floor never; each
 * once; at most QUERY_EXCLUSIONS_MAX), and the notices a card shows, escaped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hiddenNotice,
  queryExclusions,
  QUERY_EXCLUSIONS_MAX,
  spoileredNotice,
  spoileringRule,
  type ContentRules,
  type RuleLayer,
  type TagRule,
} from '../../src/render/content-rules.js';
import { DEFAULT_FLOOR } from '../../src/render/floor.js';

const rule = (tag: string, layer: RuleLayer, ratings: TagRule['ratings'] = 'any'): TagRule => ({
  tag,
  layer,
  ratings,
});

describe('spoileringRule', () => {
  it('GIVEN no spoilered rules (absent or empty) THEN none applies', () => {
    expect(spoileringRule(['safe', 'gore'], { hidden: [] })).toBeUndefined();
    expect(spoileringRule(['safe', 'gore'], { hidden: [], spoilered: [] })).toBeUndefined();
  });

  it('GIVEN a spoilered tag the image does not carry THEN none applies', () => {
    const rules: ContentRules = { hidden: [], spoilered: [rule('gore', 'server')] };
    expect(spoileringRule(['safe', 'blood'], rules)).toBeUndefined();
  });

  it('GIVEN a spoilered tag the image carries THEN that rule applies, whatever the rating', () => {
    const rules: ContentRules = { hidden: [], spoilered: [rule('gore', 'channel')] };
    expect(spoileringRule(['safe', 'gore'], rules)).toEqual(rule('gore', 'channel'));
    expect(spoileringRule(['explicit', 'gore'], rules)).toEqual(rule('gore', 'channel'));
    expect(spoileringRule(['gore'], rules)).toEqual(rule('gore', 'channel'));
  });

  it('GIVEN several rules hit THEN the first in order (the outermost layer) is named', () => {
    const rules: ContentRules = {
      hidden: [],
      spoilered: [rule('blood', 'server'), rule('gore', 'channel'), rule('gore', 'server')],
    };
    expect(spoileringRule(['gore', 'blood'], rules)).toEqual(rule('blood', 'server'));
    expect(spoileringRule(['gore'], rules)).toEqual(rule('gore', 'channel'));
  });

  it('GIVEN a not-safe rule THEN it applies to any rating but exactly safe (unrated included)', () => {
    const rules: ContentRules = { hidden: [], spoilered: [rule('filly', 'server', 'not-safe')] };
    expect(spoileringRule(['safe', 'filly'], rules)).toBeUndefined();
    expect(spoileringRule(['suggestive', 'filly'], rules)?.tag).toBe('filly');
    expect(spoileringRule(['filly'], rules)?.tag).toBe('filly');
    expect(spoileringRule(['safe', 'grimdark', 'filly'], rules)?.tag).toBe('filly');
  });

  it('GIVEN names that differ in case or spacing THEN they do not match (the board writes the names)', () => {
    const rules: ContentRules = { hidden: [], spoilered: [rule('gore', 'server')] };
    expect(spoileringRule(['safe', 'Gore', ' gore'], rules)).toBeUndefined();
  });

  it('GIVEN the hidden rules alone carry the tag THEN spoileringRule does not read them', () => {
    const rules: ContentRules = { hidden: [rule('gore', 'server')] };
    expect(spoileringRule(['safe', 'gore'], rules)).toBeUndefined();
  });
});

describe('queryExclusions', () => {
  it('GIVEN only the floor THEN nothing is left out of the query', () => {
    expect(queryExclusions({ hidden: DEFAULT_FLOOR })).toEqual([]);
    expect(queryExclusions({ hidden: [rule('my never', 'floor')] })).toEqual([]);
  });

  it('GIVEN every layer THEN the member’s tags come first, then the channel’s, then the server’s; the floor’s never', () => {
    const rules: ContentRules = {
      hidden: [
        ...DEFAULT_FLOOR,
        rule('s1', 'server'),
        rule('s2', 'server'),
        rule('c1', 'channel'),
        rule('m1', 'member'),
        rule('m2', 'member'),
      ],
    };
    expect(queryExclusions(rules)).toEqual(['m1', 'm2', 'c1', 's1', 's2']);
  });

  it('GIVEN a tag in several layers THEN it is left out once, in the first layer’s place', () => {
    const rules: ContentRules = {
      hidden: [rule('a', 'server'), rule('b', 'server'), rule('b', 'channel'), rule('a', 'member')],
    };
    expect(queryExclusions(rules)).toEqual(['a', 'b']);
  });

  it('GIVEN a not-safe community rule THEN it is not left out (the query cannot say "unless safe")', () => {
    expect(queryExclusions({ hidden: [rule('filly', 'server', 'not-safe'), rule('x', 'server')] })).toEqual([
      'x',
    ]);
  });

  it('GIVEN more hidden tags than the bound THEN the member’s and the channel’s are kept before the server’s', () => {
    const member = Array.from({ length: 10 }, (_, i) => rule(`m${i}`, 'member'));
    const channel = Array.from({ length: 25 }, (_, i) => rule(`c${i}`, 'channel'));
    const server = Array.from({ length: 200 }, (_, i) => rule(`s${i}`, 'server'));
    const out = queryExclusions({ hidden: [...DEFAULT_FLOOR, ...server, ...channel, ...member] });
    expect(out).toHaveLength(QUERY_EXCLUSIONS_MAX);
    expect(out).toEqual([
      ...member.map((r) => r.tag),
      ...channel.map((r) => r.tag),
      ...server.slice(0, QUERY_EXCLUSIONS_MAX - 35).map((r) => r.tag),
    ]);
  });

  it('GIVEN exactly the bound of distinct tags in the last layer THEN every one is kept', () => {
    const server = Array.from({ length: QUERY_EXCLUSIONS_MAX }, (_, i) => rule(`s${i}`, 'server'));
    expect(queryExclusions({ hidden: server })).toHaveLength(QUERY_EXCLUSIONS_MAX);
  });

  it('GIVEN any layers THEN distinct community tags, in layer order, at most the bound, as many as there are', () => {
    const layer = fc.constantFrom<RuleLayer>('floor', 'server', 'channel', 'member');
    const arbRule = fc.record({
      tag: fc.constantFrom(...Array.from({ length: 60 }, (_, i) => `t${i}`)),
      layer,
      ratings: fc.constantFrom<TagRule['ratings']>('any', 'not-safe'),
    });
    fc.assert(
      fc.property(fc.array(arbRule, { maxLength: 150 }), (hidden) => {
        const out = queryExclusions({ hidden });
        const eligible = hidden.filter((r) => r.layer !== 'floor' && r.ratings === 'any');
        const distinct = new Set(eligible.map((r) => r.tag));
        expect(new Set(out).size).toBe(out.length);
        expect(out.length).toBe(Math.min(QUERY_EXCLUSIONS_MAX, distinct.size));
        for (const tag of out) expect(distinct.has(tag)).toBe(true);
        // Each tag sits where the innermost layer that hides it puts it: layers never interleave.
        const rank = { member: 0, channel: 1, server: 2, floor: 3 } as const;
        const firstLayer = (tag: string): number =>
          Math.min(...eligible.filter((r) => r.tag === tag).map((r) => rank[r.layer]));
        const ranks = out.map(firstLayer);
        expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
        // Nothing of an inner layer is dropped while an outer layer's tag is kept.
        const worst = ranks.length === 0 ? -1 : Math.max(...ranks);
        const missedInner = [...distinct].filter((tag) => !out.includes(tag) && firstLayer(tag) < worst);
        expect(missedInner).toEqual([]);
      }),
    );
  });
});

describe('spoileredNotice and hiddenNotice', () => {
  it('GIVEN a server’s or a channel’s rule THEN the notice says whose and names the tag in bold', () => {
    expect(spoileredNotice(rule('gore', 'server'))).toBe(
      "Behind a spoiler: this server's rules spoiler the tag **gore**.",
    );
    expect(spoileredNotice(rule('gore', 'channel'))).toBe(
      "Behind a spoiler: this channel's rules spoiler the tag **gore**.",
    );
  });

  it.each([
    ['bold and italics', 'a**b*_c_', 'a\\*\\*b\\*\\_c\\_'],
    ['a spoiler and strike', '||x|| ~~y~~', '\\|\\|x\\|\\| \\~\\~y\\~\\~'],
    ['code and a masked link', '`[x](https://e.test)`', '\\`\\[x\\](https\\://e.test)\\`'],
    ['a mention', '@everyone <@123>', '@\u200beveryone \\<\u200b@123>'],
    ['a line break and a heading mark', '# big\n> quote', '\\# big > quote'],
  ])('GIVEN a tag with %s THEN it cannot format, link or ping', (_what, tag, escaped) => {
    const text = spoileredNotice(rule(tag, 'server'));
    expect(text).toBe(`Behind a spoiler: this server's rules spoiler the tag **${escaped}**.`);
    expect(text).not.toMatch(/\n/);
  });

  it('GIVEN a very long tag THEN the notice cuts it to 100 characters', () => {
    const text = spoileredNotice(rule('x'.repeat(500), 'channel'));
    const named = /\*\*(.*)\*\*\.$/.exec(text)?.[1] ?? '';
    expect(named.length).toBeLessThanOrEqual(100);
    expect(named.endsWith('…')).toBe(true);
  });

  it.each<[RuleLayer, RegExp]>([
    ['floor', /bot's own rules/],
    ['server', /this server's rules/],
    ['channel', /this channel's rules/],
    ['member', /your own list/],
  ])('GIVEN the %s layer hides an image THEN its notice says so and names no tag', (layer, words) => {
    const text = hiddenNotice(layer);
    expect(text).toMatch(words);
    expect(text).not.toMatch(/\*\*/);
  });
});
