/**
 * Hostile command options through the real bot, the local Discord and the local Philomena: /image id,
 * /search query (+ sort, private), /tag name, /reverse url + distance, autocomplete, /settings filter_id.
 *
 * Each run sends one interaction and checks: it was acknowledged in time and nothing sent broke Discord's
 * rules (bot-run.ts), the member got a card or an ephemeral answer, and every board request the run made
 * went to the expected endpoint with the member's text only in its own parameter: no extra parameter, never
 * the `key` (it would lend the owner's account rights to the member's text), no `filter_id` but the
 * configured one, no path outside the endpoint. Each run's member has a locale of their own (every shipped
 * language, two regional variants, one the bot does not ship), and a "nothing found" answer must be in that
 * member's language. One harness per file; runs are
 * few (the bot is real), the pure properties elsewhere run thousands.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { safeSearchQuery } from '../../commands/shared/safety.js';
import { shippedTranslator } from '../../src/i18n/index.js';
import { SORTS } from '../../commands/search/codec.js';
import { tagPath, tagSlug } from '../../src/philomena/tags.js';
import { API } from '../support/board.js';
import { customIds } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { FILTER_IDS, IDS, parseQuery, type RecordedRequest } from '../fakes/philomena/index.js';
import { hostileText, hostileTextUpTo, wellFormed } from './arbitraries.js';
import {
  boardRequestsSince,
  errorLogsSince,
  isEphemeral,
  mark,
  outcome,
  paramsOf,
  runProblems,
  throughUrl,
  type Mark,
} from './bot-run.js';

const RUNS = 30;

let h: Harness;
beforeAll(async () => {
  // The board budget (20 searches per 10 s) would only make the runs wait here.
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

/** The member got a card, a no-results line, or an ephemeral explanation; and the run was clean. */
/**
 * The locales members send the commands in: every shipped language, regional variants that fall back to
 * one (es-419, en-GB), and a language the bot does not ship (ja: English).
 */
const memberLocale = fc.constantFrom(
  'en-US',
  'de',
  'es-ES',
  'es-419',
  'fr',
  'pl',
  'pt-BR',
  'ru',
  'en-GB',
  'ja',
);

/** The "nothing found" lines of /search and /reverse in `locale`'s language (the closest shipped one). */
function noResultsIn(locale: string): string[] {
  const { t } = shippedTranslator();
  return ['search.no-results', 'reverse.no-match'].map((key) => t(locale, key));
}

/** A plain answer that is the "nothing found" line, in the member's language and no other. */
function isNoResults(content: string, locale: string): boolean {
  return noResultsIn(locale).some((line) => content.startsWith(line));
}

async function checkAnswer(
  handle: ReturnType<Harness['discord']['sendCommand']>,
  from: Mark,
  locale: string,
): Promise<void> {
  const answer = await outcome(h, handle);
  // A card (embed), or a Components V2 card or grid.
  const isCard = answer.embeds.length > 0 || (answer.flags & MessageFlags.IsComponentsV2) !== 0;
  const noResults = isNoResults(answer.content, locale);
  expect(isCard || noResults || isEphemeral(answer), `answer: ${JSON.stringify(answer.content)}`).toBe(true);
  expect(runProblems(h, from)).toEqual([]);
  expect(errorLogsSince(h, from).map((line) => line['msg'])).toEqual([]);
}

/** The filter the harness configures (BOORU_FILTER_ID): the only `filter_id` a run may send. */
const CONFIGURED_FILTER = String(FILTER_IDS.ownerPublic);

/** Only these parameter names, each at most once; never the key; `filter_id` only the configured one. */
function expectParams(request: RecordedRequest, allowed: readonly string[]): Record<string, string> {
  const params = paramsOf(request);
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(params)) {
    expect(allowed, `parameter ${name} on ${request.path}`).toContain(name);
    expect(values, `parameter ${name} repeated`).toHaveLength(1);
    single[name] = values[0] ?? '';
  }
  expect(single['key'], `the key went with ${request.path}`).toBeUndefined();
  if (single['filter_id'] !== undefined) expect(single['filter_id']).toBe(CONFIGURED_FILTER);
  return single;
}

const numericIds = fc.oneof(
  fc.constantFrom(
    IDS.safe,
    IDS.suggestive,
    IDS.explicit,
    IDS.hostileText,
    IDS.multiCredit,
    IDS.deleted,
    IDS.svg,
  ),
  fc.integer({ min: 200_000, max: 999_999_999_999_999 }),
);

describe('/image id', () => {
  const idInput = fc.oneof(
    hostileTextUpTo(500),
    numericIds.map(String),
    fc
      .tuple(fc.constantFrom('#', '>>', ' ', '  #', '-', '+', '0', '1e'), numericIds)
      .map(([p, id]) => `${p}${id}`),
    fc.tuple(numericIds, hostileText(3)).map(([id, junk]) => `${id}${junk}`),
    fc
      .tuple(numericIds, fc.constantFrom('/../../filters/1', '?key=x', '#x', '/comments', '%2F..%2F1'))
      .map(([id, tail]) => `@BOORU@/images/${id}${tail}`),
    fc.nat().map((n) => `${'9'.repeat(16)}${n}`),
  );

  let asked = 0;
  afterAll(() => expect(asked, 'no run reached the board').toBeGreaterThan(0));

  it('GIVEN any id text THEN a card or a short ephemeral answer, and only /images/<a digit run of the text> is asked', async () => {
    await fc.assert(
      fc.asyncProperty(idInput, memberLocale, async (raw, locale) => {
        const id = raw.replaceAll('@BOORU@', h.booru.url).slice(0, 500);
        const from = mark(h);
        const handle = h.discord.sendCommand({ name: 'image', options: { id }, channel: 'plain', locale });
        await checkAnswer(handle, from, locale);
        const digitRuns = new Set(id.match(/\d+/g)?.map((d) => String(Number(d))) ?? []);
        asked += boardRequestsSince(h, from).length;
        for (const request of boardRequestsSince(h, from)) {
          // A spoilered card names the configured filter: its lookup is the bot's own, keyless.
          if (request.path === `${API}/filters/${CONFIGURED_FILTER}`) {
            expectParams(request, []);
            continue;
          }
          const match = /^\/api\/v1\/json\/images\/(\d+)$/.exec(request.path);
          expect(match, `request to ${request.path}`).not.toBeNull();
          expect(digitRuns).toContain(match?.[1]);
          expectParams(request, ['filter_id']);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('/search query', () => {
  const query = fc.oneof(
    { weight: 4, arbitrary: hostileTextUpTo(1000) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('pony', 'safe', 'explicit', 'artist:alpha artist', 'pony) OR (explicit'),
    },
  );

  let asked = 0;
  afterAll(() => expect(asked, 'no run reached the board').toBeGreaterThan(0));

  it('GIVEN any query, sort, view and privacy THEN the board gets exactly `(<query>), safe` and nothing else changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        query.filter((q) => q.trim() !== ''),
        fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        memberLocale,
        async (q, sort, isPrivate, grid, locale) => {
          const from = mark(h);
          const handle = h.discord.sendCommand({
            name: 'search',
            options: {
              query: q,
              ...(sort === undefined ? {} : { sort }),
              private: isPrivate,
              ...(grid ? { view: 'grid' } : {}),
            },
            channel: 'plain',
            locale,
          });
          await checkAnswer(handle, from, locale);
          const requests = boardRequestsSince(h, from);
          asked += requests.length;
          for (const request of requests) {
            expect(request.path).toBe(`${API}/search/images`);
            const params = expectParams(request, ['q', 'page', 'per_page', 'sf', 'sd', 'filter_id']);
            expect(params['q']).toBe(throughUrl(safeSearchQuery(q.trim(), false)));
            expect(params['per_page']).toBe('50');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('GIVEN a query in an age-restricted channel THEN it goes as typed, still only in `q`', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileText(8).filter((q) => q.trim() !== ''),
        memberLocale,
        async (q, locale) => {
          const from = mark(h);
          const handle = h.discord.sendCommand({
            name: 'search',
            options: { query: q },
            channel: 'ageRestricted',
            locale,
          });
          await checkAnswer(handle, from, locale);
          for (const request of boardRequestsSince(h, from)) {
            expect(request.path).toBe(`${API}/search/images`);
            const params = expectParams(request, ['q', 'page', 'per_page', 'sf', 'sd', 'filter_id']);
            expect(params['q']).toBe(throughUrl(q.trim()));
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('/tag name', () => {
  // Well-formed names only: a lone surrogate makes tagPath (src/philomena/tags.ts) throw URIError, so the
  // member gets "Something went wrong" and an error is logged. Reported to the owners of tags.ts and
  // commands/tag.ts; the property holds for every other string.
  const name = fc.oneof(
    { weight: 4, arbitrary: hostileTextUpTo(200).map(wellFormed) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'safe',
        'littlepip',
        'twilight sparkle',
        'oc:littlepip',
        'artist:alpha artist',
        'c++',
      ),
    },
  );

  let asked = 0;
  afterAll(() => expect(asked, 'no run reached the board').toBeGreaterThan(0));

  it('GIVEN any name THEN only /tags/<its slug path> is asked, and the example search is `("<name>"), safe`', async () => {
    await fc.assert(
      fc.asyncProperty(
        name.filter((n) => n.trim() !== ''),
        memberLocale,
        async (n, locale) => {
          const from = mark(h);
          const handle = h.discord.sendCommand({
            name: 'tag',
            options: { name: n },
            channel: 'plain',
            locale,
          });
          await checkAnswer(handle, from, locale);
          const typed = n.trim();
          const own = [tagPath(typed), tagPath(tagSlug(typed))].map((p) => `${API}/tags/${p}`);
          const requests = boardRequestsSince(h, from);
          asked += requests.length;
          const first = requests[0];
          if (first !== undefined) expect(own).toContain(first.path);
          for (const request of requests) {
            if (request.path === `${API}/search/images`) {
              const params = expectParams(request, ['q', 'per_page', 'filter_id']);
              // One quoted tag name (from the board's answer), AND safe.
              const tree = parseQuery(params['q'] ?? '');
              expect(tree.kind).toBe('and');
              if (tree.kind === 'and') {
                expect(tree.children).toHaveLength(2);
                expect(tree.children[0]).toMatchObject({ kind: 'term', quoted: true });
                expect(tree.children[1]).toEqual({ kind: 'term', text: 'safe', quoted: false });
              }
            } else {
              expect(request.path).toMatch(/^\/api\/v1\/json\/tags\/[^/?#]+$/);
              expectParams(request, []);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('/reverse url and distance', () => {
  const url = fc.oneof(
    hostileTextUpTo(2000),
    hostileText(6).map((t) => `https://evil.test/${t}`),
    hostileText(6).map((t) => `http://evil.test/a.png?${t}`),
    hostileText(4).map((t) => `@BOORU@/img/2024/1/1/${IDS.safe}/full.png?key=stolen&distance=0.9#${t}`),
    fc.constantFrom(
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:image/png;base64,AAAA',
      'ftp://x.test/a.png',
    ),
  );

  let asked = 0;
  afterAll(() => expect(asked, 'no run reached the board').toBeGreaterThan(0));

  it('GIVEN any url and an in-range distance THEN one POST with exactly that URL and distance, or a clear refusal', async () => {
    await fc.assert(
      fc.asyncProperty(
        url,
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        memberLocale,
        async (raw, distance, locale) => {
          const text = raw.replaceAll('@BOORU@', h.booru.url).slice(0, 2000);
          const from = mark(h);
          const handle = h.discord.sendCommand({
            name: 'reverse',
            options: { url: text, ...(distance === undefined ? {} : { distance }) },
            channel: 'plain',
            locale,
          });
          await checkAnswer(handle, from, locale);
          let expected: string | undefined;
          try {
            const parsed = new URL(text.trim());
            if (parsed.protocol === 'https:' || parsed.protocol === 'http:') expected = parsed.href;
          } catch {
            expected = undefined;
          }
          const reverse = boardRequestsSince(h, from).filter((r) => r.path === `${API}/search/reverse`);
          asked += reverse.length;
          if (expected === undefined) expect(reverse).toEqual([]);
          for (const request of reverse) {
            expect(request.method).toBe('POST');
            const params = expectParams(request, ['url', 'distance', 'limit', 'filter_id']);
            expect(params['url']).toBe(throughUrl(expected ?? ''));
            if (distance === undefined) expect(params['distance']).toBeUndefined();
            else expect(Number(params['distance'])).toBe(distance);
          }
          for (const request of boardRequestsSince(h, from)) {
            // Besides the search itself only the fake's own image files (the board downloading the URL).
            if (request.path !== `${API}/search/reverse`)
              expect(request.path).toMatch(/^\/(?:img|samples)\//);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('autocomplete', () => {
  it('GIVEN anything typed into /search query or /tag name THEN choices within limits, and the board gets one `name:` term', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('search', 'tag'), hostileTextUpTo(200), async (command, typed) => {
        const option = command === 'search' ? 'query' : 'name';
        const from = mark(h);
        const handle = h.discord.sendAutocomplete({
          name: command,
          options: { [option]: typed },
          focused: option,
          channel: 'plain',
        });
        const choices = await handle.autocompleteChoices();
        expect(choices.length).toBeLessThanOrEqual(25);
        expect(runProblems(h, from)).toEqual([]);
        expect(errorLogsSince(h, from).map((line) => line['msg'])).toEqual([]);
        for (const request of boardRequestsSince(h, from)) {
          expect(request.path).toBe(`${API}/search/tags`);
          const params = expectParams(request, ['q', 'per_page']);
          const tree = parseQuery(params['q'] ?? '');
          expect(tree.kind).toBe('term');
          if (tree.kind === 'term') expect(tree.text.startsWith('name:')).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('/settings filter_id', () => {
  it('GIVEN any whole number Discord lets through (min 1) THEN only /filters/<that number> (and one tag search by id, to name its tags) is asked, and the answer is ephemeral', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: 2 ** 31 }),
          fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
          fc.constantFrom(56027, 100073, 200001, 200002, 200003),
        ),
        memberLocale,
        async (filterId, locale) => {
          const from = mark(h);
          const handle = h.discord.sendCommand({
            name: 'settings',
            subcommand: 'filter',
            options: { filter_id: filterId },
            channel: 'plain',
            userId: h.discord.guild.ownerId,
            locale,
          });
          const answer = await outcome(h, handle);
          expect(isEphemeral(answer)).toBe(true);
          expect(runProblems(h, from)).toEqual([]);
          expect(errorLogsSince(h, from).map((line) => line['msg'])).toEqual([]);
          for (const request of boardRequestsSince(h, from)) {
            // The key owner's filter list is never read for a member: only the filter asked for, anonymously.
            expect(request.path).not.toBe(`${API}/filters/user`);
            if (request.path === `${API}/search/tags`) {
              // Naming the filter's tags: one tag search made only of `id:<n>` terms.
              expectParams(request, ['q', 'per_page']);
              expect(request.query.get('q')).toMatch(/^id:\d+(?: \|\| id:\d+)*$/);
            } else {
              expect(request.path).toBe(`${API}/filters/${filterId}`);
              expectParams(request, []);
            }
          }
          // A filter that was set must not leak into the other properties' runs (reset asks first).
          const asked = await h.discord
            .sendCommand({
              name: 'settings',
              subcommand: 'reset',
              channel: 'plain',
              userId: h.discord.guild.ownerId,
            })
            .finalReply();
          const confirm = customIds(asked).find((id) => id.startsWith('set:reset-yes'));
          if (confirm !== undefined) {
            await h.discord
              .sendButton({ customId: confirm, message: asked, userId: h.discord.guild.ownerId })
              .finalReply();
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('options beyond what Discord itself lets through', () => {
  /**
   * Discord enforces max_length and min/max values before the bot sees an interaction; a client that
   * skips them (or a Discord bug) must still meet a bot that answers politely and asks nothing odd.
   */
  const oversized = fc.oneof(
    fc
      .tuple(fc.constant('image' as const), hostileTextUpTo(6000))
      .map(([name, id]) => ({ name, options: { id } })),
    fc
      .tuple(
        fc.constant('search' as const),
        hostileTextUpTo(6000).filter((q) => q.trim() !== ''),
      )
      .map(([name, query]) => ({ name, options: { query } })),
    fc
      .tuple(
        fc.constant('tag' as const),
        hostileTextUpTo(6000)
          .map(wellFormed)
          .filter((n) => n.trim() !== ''),
      )
      .map(([name, tagName]) => ({ name, options: { name: tagName } })),
    fc
      .tuple(
        fc.constant('reverse' as const),
        fc.constantFrom('https://evil.test/a.png', 'http://evil.test/b.png'),
        fc.oneof(
          fc.double({ min: -1e12, max: -1e-9, noNaN: true }),
          fc.double({ min: 1.000001, max: 1e300, noNaN: true }),
          fc.constantFrom(-0, Number.MAX_VALUE, -Number.MAX_VALUE),
        ),
      )
      .map(([name, url, distance]) => ({ name, options: { url, distance } })),
  );

  it('GIVEN over-long strings and out-of-range numbers THEN acknowledged, a card or an ephemeral answer, nothing unsafe', async () => {
    await fc.assert(
      fc.asyncProperty(oversized, memberLocale, async ({ name, options }, locale) => {
        const from = mark(h);
        const handle = h.discord.sendCommand({ name, options, channel: 'plain', locale });
        const answer = await outcome(h, handle);
        const fine = answer.embeds.length > 0 || isNoResults(answer.content, locale);
        expect(fine || isEphemeral(answer)).toBe(true);
        expect(runProblems(h, from)).toEqual([]);
        for (const request of boardRequestsSince(h, from)) {
          expect(request.path).toMatch(
            /^\/api\/v1\/json\/(?:images\/\d+|search\/images|search\/reverse|tags\/[^/?#]+)$/,
          );
          const params = paramsOf(request);
          for (const values of Object.values(params)) expect(values).toHaveLength(1);
          expect(params['key']).toBeUndefined();
          if (params['filter_id'] !== undefined) expect(params['filter_id']).toEqual([CONFIGURED_FILTER]);
          if (request.path.endsWith('/search/reverse') && params['distance'] !== undefined) {
            const d = Number(params['distance'][0]);
            expect(d >= 0 && d <= 1, `distance ${params['distance'][0]} sent to the board`).toBe(true);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe("the local Philomena's hostile board text", () => {
  it.each(['plain', 'ageRestricted', 'threadInPlain', 'threadInAgeRestricted', 'dm'] as const)(
    'GIVEN /image of the hostile-text image in %s THEN a card with no mention, no http URL, within limits',
    async (channel) => {
      const from = mark(h);
      const handle = h.discord.sendCommand({
        name: 'image',
        options: { id: String(IDS.hostileText) },
        channel: channel === 'dm' ? h.discord.dmChannelId : channel,
      });
      const answer = await outcome(h, handle);
      expect(answer.embeds).toHaveLength(1);
      expect(runProblems(h, from)).toEqual([]);
      expect(errorLogsSince(h, from)).toEqual([]);
    },
  );

  it('GIVEN /tag of a tag whose description holds Markdown links, spoilers and >>101 THEN the tag card is clean too', async () => {
    const from = mark(h);
    const answer = await outcome(
      h,
      h.discord.sendCommand({ name: 'tag', options: { name: 'twilight sparkle' }, channel: 'plain' }),
    );
    expect(answer.embeds).toHaveLength(1);
    expect(runProblems(h, from)).toEqual([]);
  });
});
