/**
 * Tag names checked with the local board through a real PhilomenaClient: aliases stored as their targets,
 * unknown names refused with suggestions, a board that cannot answer is an error (never "unknown"), and
 * the bounds (names per check, name length, lookups in flight) hold.
 */
import Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SUGGESTED_NAMES_MAX,
  TAG_NAME_MAX,
  TAG_NAMES_PER_CHECK,
  checkTagNames,
  tagCheckNotes,
  type TagCheck,
} from '../../../commands/shared/tag-lists.js';
import { TAG_PRESETS } from '../../../commands/shared/tag-presets.js';
import { userErrorText } from '../../../commands/shared/error-texts.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { RateLimitedError, SiteUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import type { PhilomenaClient } from '../../../src/philomena/client/types.js';
import { createClientRegistry, type ClientRegistry } from '../../../src/philomena/registry.js';
import type { Site } from '../../../src/philomena/sites.js';
import type { FakePhilomena } from '../../fakes/philomena/index.js';
import { API, boardRequests, useFakeBoard } from '../../support/board.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

const registries: ClientRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((registry) => registry.close({ force: true })));
});

/** A fresh client (its own cache, budget and breaker), with retries that do not wait long. */
function client(): PhilomenaClient {
  const registry = createClientRegistry({
    defaultSite: site,
    cache: new Keyv(),
    logger: createLogger({ level: 'silent' }),
    transport: { baseDelayMs: 1, maxDelayMs: 5, pauseWaitMs: 0 },
    // Room for a whole check of unknown names in one window: the tests count the board's requests instead.
    budget: { overall: { limit: 60, windowMs: 5_000 } },
  });
  registries.push(registry);
  return registry.client(site);
}

const PLAIN = { ageRestricted: false };
const TAG_PATH = new RegExp(`^${API}/tags/`);
const SEARCH_PATH = `${API}/search/tags`;

function check(names: readonly string[], options = PLAIN): Promise<TagCheck> {
  return checkTagNames(client(), names, options);
}

describe('checkTagNames: aliases and spellings', () => {
  it('GIVEN an alias typed in any case and spacing THEN it is accepted as its target, and the answer says so', async () => {
    const result = await check(['  AI   Art ']);
    expect(result.accepted).toEqual([{ name: 'ai generated', via: [{ given: 'ai art', alias: true }] }]);
    expect(result.unknown).toEqual([]);
    expect(tagCheckNotes(result)).toEqual(['`ai art` is an alias: stored as `ai generated`.']);
  });

  it('GIVEN a tag by its own name THEN it is accepted with no note', async () => {
    const result = await check(['gore']);
    expect(result.accepted).toEqual([{ name: 'gore', via: [] }]);
    expect(tagCheckNotes(result)).toEqual([]);
  });

  it('GIVEN a tag, two of its aliases and a repeat THEN it counts once, and each distinct name is asked once', async () => {
    const mark = booru.requests.length;
    const result = await check(['ai generated', 'ai art', 'AI ART', 'machine learning generated', 'gory']);
    expect(result.accepted.map((tag) => tag.name)).toEqual(['ai generated', 'gore']);
    expect(result.accepted[0]?.via).toEqual([
      { given: 'ai art', alias: true },
      { given: 'machine learning generated', alias: true },
    ]);
    const asked = boardRequests(booru, mark, TAG_PATH).map((request) => request.path);
    // Four distinct names, two of the aliases' targets already asked about (the cache answers the rest).
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.length).toBeLessThanOrEqual(6);
  });

  it("GIVEN a tag's slug THEN it is stored under the tag's name, and the answer says so", async () => {
    const result = await check(['oc-colon-littlepip']);
    expect(result.accepted).toEqual([
      { name: 'oc:littlepip', via: [{ given: 'oc-colon-littlepip', alias: false }] },
    ]);
    expect(tagCheckNotes(result)).toEqual(['`oc-colon-littlepip` is stored as `oc:littlepip`.']);
  });

  it('GIVEN every preset tag THEN the local board knows each one (as a tag or an alias)', async () => {
    for (const preset of TAG_PRESETS) {
      const result = await check(preset.tags);
      expect(result.unknown, preset.id).toEqual([]);
      expect(result.refused, preset.id).toEqual([]);
    }
  });
});

describe('checkTagNames: unknown names', () => {
  it('GIVEN a typo late in the name THEN it is refused with suggestions starting like it, at most 5', async () => {
    const result = await check(['ai generatd']);
    expect(result.accepted).toEqual([]);
    expect(result.unknown).toHaveLength(1);
    const suggestions = result.unknown[0]?.suggestions ?? [];
    expect(suggestions).toContain('ai generated');
    expect(suggestions.length).toBeLessThanOrEqual(5);
    for (const name of suggestions) expect(name.startsWith('ai')).toBe(true);
    const [note] = tagCheckNotes(result);
    expect(note).toMatch(/^`ai generatd` is not a tag on .+\. Did you mean `ai generated`/);
  });

  it('GIVEN a prefix of a tag and its alias THEN the suggestions name the tag once, never the alias', async () => {
    const result = await check(['gor']);
    expect(result.unknown).toEqual([{ given: 'gor', suggestions: ['gore', 'gorgeous'] }]);
  });

  it('GIVEN a name nothing starts like THEN it is refused and the answer says there are no suggestions', async () => {
    const result = await check(['zzqx nothing']);
    expect(result.unknown).toEqual([{ given: 'zzqx nothing', suggestions: [] }]);
    expect(tagCheckNotes(result)).toEqual([
      expect.stringMatching(/^`zzqx nothing` is not a tag on .+\. No tag starts like it\.$/),
    ]);
  });

  it('GIVEN a near-miss of an adult rating THEN it is suggested only where adult text may be read', async () => {
    expect((await check(['grimdar'])).unknown).toEqual([{ given: 'grimdar', suggestions: [] }]);
    expect((await check(['grimdar'], { ageRestricted: true })).unknown).toEqual([
      { given: 'grimdar', suggestions: ['grimdark'] },
    ]);
  });

  it('GIVEN known and unknown names together THEN each lands in its own list, in the order given', async () => {
    const result = await check(['pony', 'nope nope', 'ai art', 'safe']);
    expect(result.accepted.map((tag) => tag.name)).toEqual(['pony', 'ai generated', 'safe']);
    expect(result.unknown.map((tag) => tag.given)).toEqual(['nope nope']);
  });
});

describe('checkTagNames: a board that cannot answer', () => {
  it('GIVEN the board answers 503 THEN the check rejects with the board error, which reads "try again"', async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: TAG_PATH });
    const error = await check(['gore']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(userErrorText(error).text).toMatch(/^The site is down or not answering right now\. Try again/);
  });

  it('GIVEN the board answers 429 THEN the check rejects as busy, not as an unknown tag', async () => {
    booru.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 30 }, path: TAG_PATH });
    const error = await check(['gore']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(userErrorText(error)).toMatchObject({ id: 'board.busy' });
  });

  it('GIVEN the tag search fails while suggesting THEN the check rejects rather than saying "no suggestions"', async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: SEARCH_PATH });
    await expect(check(['zzqx nothing'])).rejects.toBeInstanceOf(SiteUnavailableError);
  });

  it('GIVEN a long list and a failing board THEN the names not yet asked about are never asked', async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: TAG_PATH });
    const mark = booru.requests.length;
    const names = Array.from({ length: TAG_NAMES_PER_CHECK }, (_, i) => `missing tag ${i}`);
    await expect(check(names)).rejects.toBeInstanceOf(SiteUnavailableError);
    const asked = new Set(boardRequests(booru, mark, TAG_PATH).map((request) => request.path));
    expect(asked.size).toBeLessThanOrEqual(3);
  });
});

describe('checkTagNames: bounds', () => {
  it(`GIVEN more than ${TAG_NAMES_PER_CHECK} distinct names THEN it refuses with the limit said, before any board call`, async () => {
    const mark = booru.requests.length;
    const names = Array.from({ length: TAG_NAMES_PER_CHECK + 1 }, (_, i) => `tag ${i}`);
    const error = await check(names).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserFacingError);
    expect(error).toMatchObject({
      id: 'tags.too-many',
      message: expect.stringContaining(`at most ${TAG_NAMES_PER_CHECK}`),
    });
    expect(booru.requests.length).toBe(mark);
  });

  it(`GIVEN ${TAG_NAMES_PER_CHECK} unknown names repeated in other cases THEN they count once each, and only the first ${SUGGESTED_NAMES_MAX} cost a search`, async () => {
    const mark = booru.requests.length;
    const names = Array.from({ length: TAG_NAMES_PER_CHECK }, (_, i) => `zz${i} tag`);
    const result = await check([...names, ...names.map((name) => name.toUpperCase()), '', '  ']);
    expect(result.unknown.map((tag) => tag.given)).toEqual(names);
    expect(result.unknown.slice(0, SUGGESTED_NAMES_MAX).every((tag) => tag.suggestions !== null)).toBe(true);
    expect(result.unknown.slice(SUGGESTED_NAMES_MAX).every((tag) => tag.suggestions === null)).toBe(true);
    // One prefix search per suggested name, and one for the shortened name they share (`zz0` ... differ).
    expect(boardRequests(booru, mark, SEARCH_PATH).length).toBeLessThanOrEqual(2 * SUGGESTED_NAMES_MAX);
    expect(new Set(boardRequests(booru, mark, TAG_PATH).map((r) => r.path)).size).toBe(TAG_NAMES_PER_CHECK);
    const notes = tagCheckNotes(result);
    expect(notes.at(-2)).toMatch(/is not a tag on .+\. Check its spelling\.$/);
    expect(notes.at(-1)).toBe(
      `(Suggestions are looked up for the first ${SUGGESTED_NAMES_MAX} unknown names only.)`,
    );
  });

  it('GIVEN a name past the length limit, a wildcard, a bare namespace or search syntax THEN each is refused without a board call', async () => {
    const mark = booru.requests.length;
    const long = 'x'.repeat(TAG_NAME_MAX + 1);
    const result = await check([
      long,
      'gore*',
      'g?re',
      'artist:',
      'gore OR blood',
      '-safe',
      '!safe',
      'score.gte:100',
      'safe^2',
      'gore~0.8',
      '"gore"',
      'gore && blood',
    ]);
    expect(result.refused.map((tag) => tag.reason)).toEqual([
      'too-long',
      'wildcard',
      'wildcard',
      'namespace-only',
      'query-syntax',
      'query-syntax',
      'query-syntax',
      'query-syntax',
      'query-syntax',
      'query-syntax',
      'query-syntax',
      'query-syntax',
    ]);
    expect(booru.requests.length).toBe(mark);
    const notes = tagCheckNotes(result);
    expect(notes[0]).toMatch(/^`x+…?` is longer than 100 characters/);
    expect(notes).toContain('`artist:` is only a namespace: give a whole tag, such as `artist:name`.');
  });

  it('GIVEN names that only look like syntax (emoticons, lower-case words, a full namespaced tag) THEN they are looked up', async () => {
    const result = await check(['-_-', '^_^', 'rock and roll', 'oc:littlepip', 'x'.repeat(TAG_NAME_MAX)]);
    expect(result.refused).toEqual([]);
    expect(result.accepted.map((tag) => tag.name)).toEqual(['oc:littlepip']);
    expect(result.unknown).toHaveLength(4);
  });

  it('GIVEN a long list THEN at most 3 lookups are in flight at once', async () => {
    booru.inject({ fault: { kind: 'latency', ms: 30 }, path: TAG_PATH });
    const real = client();
    let inFlight = 0;
    let most = 0;
    const counting: Pick<PhilomenaClient, 'site' | 'tag' | 'searchTags'> = {
      site: real.site,
      async tag(name, options) {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          return await real.tag(name, options);
        } finally {
          inFlight -= 1;
        }
      },
      searchTags: (options) => real.searchTags(options),
    };
    const names = ['gore', 'guts', 'dismemberment', 'decapitation', 'blood', 'pony', 'safe', 'ai art'];
    const result = await checkTagNames(counting, names, PLAIN);
    expect(result.accepted).toHaveLength(names.length);
    expect(most).toBe(3);
  });

  it('GIVEN a name with a mention or a backtick THEN the answer can neither ping nor break out of code', async () => {
    const result = await check(['@everyone `x` <@123>']);
    const [note] = tagCheckNotes(result);
    expect(note).not.toMatch(/@everyone|<@123>/);
    expect(note?.match(/`/g)).toHaveLength(2);
  });
});
