/**
 * `>>123` references (commands/unfurl/references.ts), by the board's own rule: `>>123`, `>>123t`, `>>123s`,
 * `>>123p`; not after or before a letter or digit, not inside Discord's `>>>` block quote; merged with
 * written links in the order written, each image once.
 */
import { describe, expect, it } from 'vitest';
import { imageReferences, mergeLinks } from '../../../commands/unfurl/references.js';
import { resolveSite } from '../../../src/philomena/sites.js';

const site = resolveSite('derpibooru');
const ids = (text: string) => imageReferences(text, site).map((link) => link.imageId);

describe('image references', () => {
  it.each([
    ['>>123', [123]],
    ['see >>123t and >>45s, >>6p.', [123, 45, 6]],
    ['(>>7)', [7]],
    ['a>>1 >>2b >>3x', []],
    ['>>> 5', []],
    ['>>>5', []],
    ['>>', []],
    ['>>1234567890123', []],
    ['> quoted >>9', [9]],
  ])('GIVEN %j THEN %j', (text, expected) => {
    expect(ids(text)).toEqual(expected);
  });

  it('GIVEN a link and references to the same and other images THEN each image once, in the order written', () => {
    const links = [{ site, imageId: 9, url: 'https://derpibooru.org/images/9', index: 10 }];
    const merged = mergeLinks(
      links,
      imageReferences('>>4 then https://derpibooru.org/images/9 >>9 >>5', site),
    );
    expect(merged.map((link) => link.imageId)).toEqual([4, 9, 5]);
  });
});
