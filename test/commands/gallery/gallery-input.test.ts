/**
 * What /gallery reads from its options (plain words become `title:*word*` terms, the board's syntax passes
 * as typed; an id or a gallery link), and the custom ids of its components (what is written reads back).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeGalleryButton,
  galleryButton,
  galleryListCodec,
  type GalleryPage,
} from '../../../commands/gallery/gallery-codec.js';
import { galleryQuery, parseGalleryInput } from '../../../commands/gallery/gallery-input.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { targetPage } from '../../../commands/shared/image-paging.js';
import { decodeCustomId } from '../../../src/discord/custom-id.js';
import { knownSite, type Site } from '../../../src/philomena/sites.js';

function site(id: string): Site {
  const found = knownSite(id);
  if (found === undefined) throw new Error(`no site ${id}`);
  return found;
}

const derpibooru = site('derpibooru');
const furbooru = site('furbooru');
const sites = createSiteDirectory({ defaultSite: derpibooru, defaultFilterId: undefined });

describe('galleryQuery', () => {
  it.each([
    ['best', 'title:*best*'],
    ['  Best  Of ', 'title:*best*, title:*of*'],
    ['pony résumé', 'title:*pony*, title:*résumé*'],
  ])('GIVEN plain words %j THEN each is a title:*word* term: %s', (typed, expected) => {
    expect(galleryQuery(typed)).toBe(expected);
  });

  it.each([
    'title:*best*',
    'creator:foo',
    'best, of',
    'best || worst',
    'best OR worst',
    'NOT best',
    '-best',
    '!best',
    '"best of"',
    'be*t',
    '(best)',
    'id.gte:100',
  ])('GIVEN the board’s syntax %j THEN it passes as typed', (typed) => {
    expect(galleryQuery(typed)).toBe(typed);
  });

  it('GIVEN any words without the board’s syntax THEN every word is one wildcard term of the title', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9]{1,12}$/), { minLength: 1, maxLength: 6 }),
        (words) => {
          const typed = words.join(' ');
          fc.pre(!/\b(?:and|or|not)\b/i.test(typed));
          expect(galleryQuery(typed)).toBe(words.map((w) => `title:*${w}*`).join(', '));
        },
      ),
    );
  });
});

describe('parseGalleryInput', () => {
  it('GIVEN a number THEN that gallery on the view’s site', () => {
    expect(parseGalleryInput(' #123 ', sites, furbooru)).toEqual({ site: furbooru, galleryId: 123 });
  });

  it('GIVEN a gallery link THEN the gallery on the link’s site', () => {
    expect(parseGalleryInput('https://derpibooru.org/galleries/4567', sites, furbooru)).toEqual({
      site: derpibooru,
      galleryId: 4567,
    });
  });

  it.each(['0', 'abc', 'https://derpibooru.org/images/12', 'https://evil.example/galleries/1', ''])(
    'GIVEN %j THEN nothing',
    (text) => {
      expect(parseGalleryInput(text, sites, derpibooru)).toBeUndefined();
    },
  );
});

describe('gallery custom ids', () => {
  it('GIVEN any page THEN its buttons fit in 100 characters and read back the same', () => {
    fc.assert(
      fc.property(
        fc.record({
          galleryId: fc.integer({ min: 1, max: 10 ** 12 - 1 }),
          page: fc.integer({ min: 1, max: 10 ** 9 }),
          total: fc.integer({ min: 1, max: 10 ** 9 }),
          owner: fc.stringMatching(/^[1-9]\d{16,19}$/),
          issuedAt: fc.integer({ min: 0, max: 2 ** 41 }).map((ms) => Math.floor(ms / 1000) * 1000),
          private: fc.boolean(),
          grid: fc.boolean(),
        }),
        (fields) => {
          const state: GalleryPage = { ...fields, site: furbooru };
          for (const action of ['prev', 'next', 'rand', 'pub'] as const) {
            const id = encodeGalleryButton(action, state);
            expect(id.length).toBeLessThanOrEqual(100);
            const decoded = decodeCustomId(id);
            expect(decoded?.key).toBe(galleryButton.key(action));
            const back = galleryButton.decodeWithSite(decoded?.args ?? [], sites.all, derpibooru);
            expect(back).toEqual(state);
          }
        },
      ),
    );
  });

  it('GIVEN a list select THEN its choice reads back, and a damaged one reads as nothing', () => {
    const id = galleryListCodec.encode('open', {
      site: 'f',
      owner: '123456789012345678',
      private: true,
      grid: false,
    });
    const decoded = decodeCustomId(id);
    expect(galleryListCodec.decode(decoded?.args ?? [])).toEqual({
      site: 'f',
      owner: '123456789012345678',
      private: true,
      grid: false,
    });
    expect(galleryListCodec.decode(['f', 'not-an-id', '1', '0'])).toBeUndefined();
  });
});

describe('targetPage', () => {
  it('GIVEN Random THEN always another page within the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 500 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (total, r) => {
          const page = 1 + Math.floor(r * total);
          const next = targetPage('rand', page, total, () => r);
          expect(next).not.toBe(page);
          expect(next).toBeGreaterThanOrEqual(1);
          expect(next).toBeLessThanOrEqual(total);
        },
      ),
    );
  });

  it('GIVEN Previous on the first page and Next on the last THEN they stay', () => {
    expect(targetPage('prev', 1, 5, Math.random)).toBe(1);
    expect(targetPage('next', 5, 5, Math.random)).toBe(5);
  });
});

describe('gallery ids past what a button carries', () => {
  it('GIVEN a 13-digit id, bare or in a link THEN it is no gallery (its paging could not read it back)', () => {
    expect(parseGalleryInput('1000000000000', sites, derpibooru)).toBeUndefined();
    expect(
      parseGalleryInput(`${derpibooru.baseUrl}/galleries/1000000000000`, sites, derpibooru),
    ).toBeUndefined();
    expect(parseGalleryInput('999999999999', sites, derpibooru)).toEqual({
      site: derpibooru,
      galleryId: 999999999999,
    });
  });
});
