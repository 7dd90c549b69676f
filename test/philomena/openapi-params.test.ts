/**
 * Parameters as Philomena's own openapi.yaml lists them (docs/board-behaviour.md, "Parameters"): `sf=hides`
 * is one of the board's sort fields, and an upload always carries `tag_input` (the board requires it):
 * without tags it is refused before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { FAKE_KEY, type FakePhilomena } from '../fakes/philomena/index.js';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { isSortField, SORT_FIELDS } from '../../src/philomena/client/sort-fields.js';
import type { SubmitImageInput } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { API, useFakeBoard } from '../support/board.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

const client = () => createPhilomenaClient({ site, apiKey: FAKE_KEY, transport: { baseDelayMs: 1 } });

describe('sort fields', () => {
  it('GIVEN sf=hides THEN it is a sort field of the server, and the search sends it', async () => {
    expect(SORT_FIELDS).toContain('hides');
    expect(isSortField('hides')).toBe(true);
    await expect(client().searchImages({ q: 'safe', sf: 'hides', sd: 'desc' })).resolves.toHaveProperty(
      'items',
    );
    const [sent] = booru.requests.filter((r) => r.path === `${API}/search/images`);
    expect(sent?.query.get('sf')).toBe('hides');
  });
});

describe('uploads need tag_input', () => {
  it.each<[string, Partial<SubmitImageInput>]>([
    ['no tagInput', {}],
    ['an empty tagInput', { tagInput: '' }],
    ['a blank tagInput', { tagInput: '   ' }],
  ])('GIVEN %s THEN RangeError before any request', async (_name, extra) => {
    const input = { url: `${booru.url}/samples/no-tags.png`, ...extra } as SubmitImageInput;
    await expect(client().submitImage(input)).rejects.toBeInstanceOf(RangeError);
    expect(booru.requests).toHaveLength(0);
  });

  it('GIVEN tags THEN the body carries them as image.tag_input', async () => {
    const result = await client().submitImage({
      url: `${booru.url}/samples/with-tags-${Date.now()}.png`,
      tagInput: 'safe, pony, artist:tester',
    });
    expect(result.ok).toBe(true);
    const [sent] = booru.requests.filter((r) => r.method === 'POST' && r.path === `${API}/images`);
    expect(JSON.parse(sent?.body.toString('utf8') ?? '{}')).toMatchObject({
      image: { tag_input: 'safe, pony, artist:tester' },
    });
  });
});
