/**
 * searchBands: every feed of a group served from its own cursor (a lagging feed must not cost the others
 * their new images), with as few searches as the cursors allow. The board is a sorted list of ids here;
 * the poller's use of it runs against the local board in poller.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { searchBands, type BandPage } from '../../../commands/feed/bands.js';
import type { VisibleImage } from '../../../src/philomena/schemas.js';

/** A board holding `ids` that answers `id.gt:<above>` ascending, `page` per page, and counts the calls. */
function board(ids: readonly number[], page = 50) {
  const calls: number[] = [];
  const search = (above: number): Promise<BandPage> => {
    calls.push(above);
    const matches = ids.filter((id) => id > above).sort((a, b) => a - b);
    return Promise.resolve({
      items: matches.slice(0, page).map((id) => ({ id }) as unknown as VisibleImage),
      total: matches.length,
    });
  };
  return { calls, search };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const idsOf = (images: readonly VisibleImage[]) => images.map((image) => image.id);

describe('searchBands', () => {
  it('GIVEN feeds up to date at one cursor THEN one search serves them all', async () => {
    const { calls, search } = board(range(1, 120));
    const bands = await searchBands([100, 100, 100], 10, 4, search);
    expect(calls).toEqual([100]);
    expect(idsOf(bands.get(100)?.images ?? [])).toEqual(range(101, 120));
    expect(bands.get(100)?.total).toBe(20);
  });

  it('GIVEN one feed 58 images behind and one up to date THEN each gets the images above its own cursor (the S2 case)', async () => {
    const { calls, search } = board(range(1, 61));
    const bands = await searchBands([0, 58], 10, 4, search);
    // The page from 0 holds 1..50 only: the up-to-date feed's images are beyond it, so it gets its own search.
    expect(calls).toEqual([0, 58]);
    expect(idsOf(bands.get(58)?.images ?? [])).toEqual([59, 60, 61]);
    expect(bands.get(58)?.total).toBe(3);
    expect(bands.get(0)?.total).toBe(61);
    expect(idsOf(bands.get(0)?.images ?? [])).toEqual(range(1, 50));
  });

  it('GIVEN a cursor inside the first page with enough images above it THEN it shares that search', async () => {
    const { calls, search } = board(range(1, 200));
    const bands = await searchBands([0, 30], 10, 4, search);
    expect(calls).toEqual([0]);
    expect(idsOf(bands.get(30)?.images ?? [])).toEqual(range(31, 50));
    // Everything above 30, beyond the page too.
    expect(bands.get(30)?.total).toBe(170);
  });

  it('GIVEN a cursor near the end of a full page THEN it gets a search of its own rather than too few images', async () => {
    const { calls, search } = board(range(1, 200));
    const bands = await searchBands([0, 45], 10, 4, search);
    expect(calls).toEqual([0, 45]);
    expect(idsOf(bands.get(45)?.images ?? []).slice(0, 10)).toEqual(range(46, 55));
  });

  it('GIVEN the last page THEN every cursor is whole whatever it holds', async () => {
    const { calls, search } = board(range(1, 30));
    const bands = await searchBands([0, 5, 29, 30], 10, 4, search);
    expect(calls).toEqual([0]);
    expect(idsOf(bands.get(29)?.images ?? [])).toEqual([30]);
    expect(bands.get(30)?.images).toEqual([]);
    expect(bands.get(30)?.total).toBe(0);
  });

  it('GIVEN a page that holds fewer images than a round may post but is not the last THEN its own cursor is still served', async () => {
    // The board answered 50 entries but the client kept 5 images (the rest were not images one may see).
    const search = (above: number): Promise<BandPage> =>
      Promise.resolve({
        items: range(above + 1, above + 5).map((id) => ({ id }) as unknown as VisibleImage),
        total: 500,
      });
    const bands = await searchBands([0], 10, 4, search);
    expect(idsOf(bands.get(0)?.images ?? [])).toEqual([1, 2, 3, 4, 5]);
    expect(bands.get(0)?.total).toBe(500);
  });

  it('GIVEN more bands than searches allowed THEN the rest are left for the next round', async () => {
    const { calls, search } = board(range(1, 1_000));
    const bands = await searchBands([0, 100, 200, 300, 400], 10, 2, search);
    expect(calls).toEqual([0, 100]);
    expect([...bands.keys()]).toEqual([0, 100]);
  });

  it('GIVEN the first search fails THEN it rejects; GIVEN a later one fails THEN its cursors are left out', async () => {
    const failing = () => Promise.reject(new Error('board down'));
    await expect(searchBands([0], 10, 4, failing)).rejects.toThrow('board down');
    const { search } = board(range(1, 200));
    let n = 0;
    const bands = await searchBands([0, 100], 10, 4, (above) => (n++ === 0 ? search(above) : failing()));
    expect([...bands.keys()]).toEqual([0]);
  });
});
