/**
 * The checks before an upload is sent (commands/upload/upload-input.ts): the link, the tags as the board's
 * tag validator reads them (a rating, the site's minimum, ratings that exclude each other), the source and
 * the description; each refusal one identifier.
 */
import { describe, expect, it } from 'vitest';
import { checkUpload, type TypedUpload } from '../../../commands/upload/upload-input.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { knownSite, resolveSite, type Site } from '../../../src/philomena/sites.js';

const derpibooru = knownSite('derpibooru') as Site;
const furbooru = knownSite('furbooru') as Site;
const custom = resolveSite('https://booru.example');
const URL_OK = 'https://art.example/picture.png';
const TAGS_OK = 'safe, pony, artist:someone';

function refusalOf(typed: Partial<TypedUpload>, site: Site = derpibooru): string | undefined {
  try {
    checkUpload({ url: URL_OK, tags: TAGS_OK, ...typed }, site);
    return undefined;
  } catch (error) {
    if (error instanceof UserFacingError) return error.id;
    throw error;
  }
}

describe('checkUpload: the tags', () => {
  it.each([
    ['pony, artist:x, oc', 'upload.tags-rating'],
    ['safe, pony', 'upload.tags-few'],
    ['safe, pony, , ,pony', 'upload.tags-few'],
    ['safe, explicit, pony', 'upload.tags-safe'],
    ['safe, grimdark, pony', 'upload.tags-safe'],
    ['safe, grotesque, pony', 'upload.tags-safe'],
    ['suggestive, explicit, pony', 'upload.tags-sexual'],
    ['semi-grimdark, grimdark, pony', 'upload.tags-grim'],
    [`safe, pony, ${'x'.repeat(101)}`, 'upload.tags-too-long'],
    [['safe', ...Array.from({ length: 200 }, (_, i) => `t${i}`)].join(','), 'upload.tags-too-long'],
    ['safe, pony,\u0000 oc', 'upload.control-characters'],
  ])('GIVEN %j THEN %s', (tags, id) => {
    expect(refusalOf({ tags })).toBe(id);
  });

  it('GIVEN accepted tags THEN they go normalised, each once', () => {
    const input = checkUpload({ url: URL_OK, tags: ' Safe,  PONY ,pony, Artist:Someone ' }, derpibooru);
    expect(input.tagInput).toBe('safe, pony, artist:someone');
  });

  it('GIVEN explicit with grimdark and grotesque THEN allowed, as the board allows it', () => {
    expect(refusalOf({ tags: 'explicit, grimdark, grotesque' })).toBeUndefined();
  });

  it('GIVEN Furbooru THEN five tags are needed; an unknown site needs three', () => {
    expect(refusalOf({ tags: 'safe, a, b, c' }, furbooru)).toBe('upload.tags-few');
    expect(refusalOf({ tags: 'safe, a, b, c, d' }, furbooru)).toBeUndefined();
    expect(refusalOf({ tags: 'safe, a, b' }, custom)).toBeUndefined();
  });
});

describe('checkUpload: the links', () => {
  it.each([
    ['javascript:alert(1)', 'upload.url-not-http'],
    ['file:///etc/passwd', 'upload.url-not-http'],
    ['data:image/png;base64,AAAA', 'upload.url-not-http'],
    ['ftp://art.example/a.png', 'upload.url-not-http'],
    ['not a link', 'upload.url-not-http'],
    ['https://art.example/a b.png', 'upload.url-not-http'],
    ['https://art.example/a\n.png', 'upload.url-not-http'],
    ['http://user:pass@art.example/a.png', 'upload.url-credentials'],
    ['https://token@art.example/a.png', 'upload.url-credentials'],
    [`https://art.example/${'a'.repeat(2_000)}`, 'upload.url-too-long'],
  ])('GIVEN the image link %j THEN %s', (url, id) => {
    expect(refusalOf({ url })).toBe(id);
  });

  it('GIVEN an IDN or plain http link THEN it goes, as the board would fetch it', () => {
    expect(checkUpload({ url: 'https://пример.рф/a.png', tags: TAGS_OK }, derpibooru).url).toBe(
      'https://xn--e1afmkfd.xn--p1ai/a.png',
    );
    expect(refusalOf({ url: 'http://art.example/a.png' })).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', 'upload.source-not-http'],
    ['someone on twitter', 'upload.source-not-http'],
    ['https://a:b@art.example/', 'upload.url-credentials'],
    [`https://art.example/${'a'.repeat(2_000)}`, 'upload.source-too-long'],
  ])('GIVEN the source %j THEN %s', (source, id) => {
    expect(refusalOf({ source })).toBe(id);
  });

  it('GIVEN a blank source and description THEN neither is sent', () => {
    expect(checkUpload({ url: URL_OK, tags: TAGS_OK, source: '  ', description: ' ' }, derpibooru)).toEqual({
      url: URL_OK,
      tagInput: TAGS_OK,
    });
  });
});

describe('checkUpload: the description', () => {
  it('GIVEN more than 50,000 bytes THEN refused; line breaks are fine, other control characters not', () => {
    expect(refusalOf({ description: 'é'.repeat(25_001) })).toBe('upload.description-too-long');
    expect(refusalOf({ description: 'é'.repeat(25_000) })).toBeUndefined();
    expect(refusalOf({ description: 'line one\nline two\ttabbed' })).toBeUndefined();
    expect(refusalOf({ description: 'bell\u0007' })).toBe('upload.control-characters');
  });

  it('GIVEN every check failing THEN the link is said first, then the tags', () => {
    expect(refusalOf({ url: 'ftp://x', tags: 'pony', description: 'x'.repeat(60_000) })).toBe(
      'upload.url-not-http',
    );
    expect(refusalOf({ tags: 'pony', source: 'nope', description: 'x'.repeat(60_000) })).toBe(
      'upload.tags-rating',
    );
  });
});
