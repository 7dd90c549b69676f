import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { imageResponseSchema, tagSchema, userSchema, type Image } from '../../src/philomena/schemas.js';
import { knownSite, resolveSite, type Site } from '../../src/philomena/sites.js';
import {
  absolutiseAvatar,
  absolutiseImage,
  absolutiseTag,
  absolutiseUser,
  httpsUrl,
  imagePageUrl,
  sourceLink,
  tagPageUrl,
} from '../../src/philomena/urls.js';
import { PHILOMENA_FIXTURES_DIR } from '../support/shared.js';

function site(id: string): Site {
  const found = knownSite(id);
  if (!found) throw new Error(`no site ${id}`);
  return found;
}

const derpibooru = site('derpibooru');
const local = resolveSite('http://127.0.0.1:8080');
const FIXTURES = PHILOMENA_FIXTURES_DIR;

describe('httpsUrl', () => {
  const cases: [string, string | null | undefined, Site, string | null][] = [
    [
      'absolute https',
      'https://derpicdn.net/img/view/1.png',
      derpibooru,
      'https://derpicdn.net/img/view/1.png',
    ],
    [
      'protocol-relative',
      '//derpicdn.net/img/1/thumb.png',
      derpibooru,
      'https://derpicdn.net/img/1/thumb.png',
    ],
    ['root-relative', '/img/1/thumb.png', derpibooru, 'https://derpibooru.org/img/1/thumb.png'],
    ['http upgraded', 'http://derpicdn.net/img/x.png', derpibooru, 'https://derpicdn.net/img/x.png'],
    ['upper-case scheme', 'HTTP://Derpicdn.net/a', derpibooru, 'https://derpicdn.net/a'],
    ['surrounding spaces', '  https://a.test/x  ', derpibooru, 'https://a.test/x'],
    ['data URI', 'data:image/svg+xml;base64,PHN2Zz4=', derpibooru, null],
    ['javascript URI', 'javascript:alert(1)', derpibooru, null],
    ['scheme-less host', 'derpicdn.net/img/x.png', derpibooru, null],
    ['ftp', 'ftp://derpicdn.net/x', derpibooru, null],
    ['empty', '', derpibooru, null],
    ['blank', '   ', derpibooru, null],
    ['null', null, derpibooru, null],
    ['undefined', undefined, derpibooru, null],
    ['no host', 'https://', derpibooru, null],
    ['credentials', 'https://user:pw@derpicdn.net/x', derpibooru, null],
    ['local site, root-relative', '/img/1.png', local, 'http://127.0.0.1:8080/img/1.png'],
    ['local site, own host', 'http://127.0.0.1:8080/img/1.png', local, 'http://127.0.0.1:8080/img/1.png'],
    ['local site, own host protocol-relative', '//127.0.0.1:8080/a', local, 'http://127.0.0.1:8080/a'],
    ['local site, other host', 'http://cdn.test/img/1.png', local, 'https://cdn.test/img/1.png'],
    ['local site, other port', 'http://127.0.0.1:9999/x', local, 'https://127.0.0.1:9999/x'],
    ['spaces in the path', 'https://a.test/a b.png', derpibooru, 'https://a.test/a%20b.png'],
  ];
  it.each(cases)('GIVEN %s THEN the result is right', (_name, input, s, expected) => {
    expect(httpsUrl(input, s)).toBe(expected);
  });
});

describe('sourceLink', () => {
  const cases: [string, string | null][] = [
    [
      'https://twitter.com/KamDrawings/status/1123822106784010240',
      'https://twitter.com/KamDrawings/status/1123822106784010240',
    ],
    ['http://www.deviantart.com/art/x', 'https://www.deviantart.com/art/x'],
    [' https://a.test/x ', 'https://a.test/x'],
    ['www.deviantart.com/art/x', null],
    ['//a.test/x', null],
    ['javascript:alert(1)', null],
    ['data:text/html,hi', null],
    ['https://derpibooru.org@evil.test/x', null],
    ['https://user:pw@a.test/', null],
    ['I drew it myself', null],
    ['', null],
  ];
  it.each(cases)('GIVEN the source %j THEN the link is %j', (input, expected) => {
    expect(sourceLink(input)).toBe(expected);
  });
  it('GIVEN null THEN null', () => {
    expect(sourceLink(null)).toBeNull();
  });
});

describe('page URLs', () => {
  it('GIVEN a site and id THEN the image page is under the base', () => {
    expect(imagePageUrl(derpibooru, 2028858)).toBe('https://derpibooru.org/images/2028858');
    expect(imagePageUrl(local, 5)).toBe('http://127.0.0.1:8080/images/5');
  });
  it.each([
    ['artist:foo bar', 'https://derpibooru.org/tags/artist-colon-foo+bar'],
    ['artist-colon-foo+bar', 'https://derpibooru.org/tags/artist-colon-foo+bar'],
    ['semi-grimdark', 'https://derpibooru.org/tags/semi-dash-grimdark'],
    ['what? #1', 'https://derpibooru.org/tags/what%3F+%231'],
  ])('GIVEN the tag %j THEN the page is %j', (tag, url) => {
    expect(tagPageUrl(derpibooru, tag)).toBe(url);
  });
});

function fixtureImage(): Image {
  const body: unknown = JSON.parse(
    readFileSync(`${FIXTURES}/derpibooru_2020_image_2028858_show_response.json`, 'utf8'),
  );
  return imageResponseSchema.parse(body).image;
}

describe('absolutiseImage', () => {
  it('GIVEN a real image with https URLs THEN it comes back equal', () => {
    const image = fixtureImage();
    expect(absolutiseImage(image, derpibooru)).toEqual(image);
  });

  it('GIVEN relative, protocol-relative and junk URLs THEN each becomes https or falls back to full', () => {
    const image = fixtureImage();
    if (image.kind !== 'image') throw new Error('fixture is visible');
    const odd = {
      ...image,
      representations: {
        ...image.representations,
        full: '//derpicdn.net/img/view/2019/5/2/2028858.png',
        thumb: '/img/2019/5/2/2028858/thumb.png',
        small: 'data:image/png;base64,AAAA',
        mp4: 'http://derpicdn.net/img/2019/5/2/2028858/full.mp4',
      },
      view_url: 'javascript:alert(1)',
      source_urls: [
        'http://example.test/src',
        ' https://a.test/x ',
        'I drew it myself',
        'http://user:pw@evil.test/x',
        'HTTP://shout.test/y',
      ],
    };
    const out = absolutiseImage(odd, derpibooru);
    if (out.kind !== 'image') throw new Error('still visible');
    expect(out.representations.full).toBe('https://derpicdn.net/img/view/2019/5/2/2028858.png');
    expect(out.representations.thumb).toBe('https://derpibooru.org/img/2019/5/2/2028858/thumb.png');
    expect(out.representations.small).toBe(out.representations.full);
    expect(out.representations.mp4).toBe('https://derpicdn.net/img/2019/5/2/2028858/full.mp4');
    expect(out.view_url).toBe(out.representations.full);
    // Sources are the uploader's text: URLs become https links, prose stays, nothing stays plain http.
    expect(out.source_urls).toEqual([
      'https://example.test/src',
      'https://a.test/x',
      'I drew it myself',
      'https://user:pw@evil.test/x',
      'https://shout.test/y',
    ]);
    expect(out.source_urls.map(sourceLink)).toEqual([
      'https://example.test/src',
      'https://a.test/x',
      null,
      null,
      'https://shout.test/y',
    ]);
    for (const url of Object.values(out.representations)) expect(url).toMatch(/^https:\/\//);
  });

  it('GIVEN nothing can be made https THEN every URL falls back to the image page', () => {
    const image = fixtureImage();
    if (image.kind !== 'image') throw new Error('fixture is visible');
    const junk = Object.fromEntries(Object.keys(image.representations).map((k) => [k, 'data:,x']));
    const out = absolutiseImage(
      { ...image, representations: { ...image.representations, ...junk }, view_url: '' },
      derpibooru,
    );
    if (out.kind !== 'image') throw new Error('still visible');
    expect(new Set([...Object.values(out.representations), out.view_url])).toEqual(
      new Set(['https://derpibooru.org/images/2028858']),
    );
  });

  it('GIVEN a hidden stub THEN it comes back unchanged', () => {
    const stub = imageResponseSchema.parse({
      image: { id: 5, hidden_from_users: true, duplicate_of: 4 },
    }).image;
    expect(absolutiseImage(stub, derpibooru)).toBe(stub);
  });
});

describe('other absolutisers', () => {
  it('GIVEN a data: avatar and a relative one THEN null and https', () => {
    expect(
      absolutiseAvatar({ id: 1, avatar: 'data:image/svg+xml;utf8,<svg/>' }, derpibooru).avatar,
    ).toBeNull();
    expect(absolutiseAvatar({ id: 1, avatar: '/avatars/a.png' }, derpibooru).avatar).toBe(
      'https://derpibooru.org/avatars/a.png',
    );
  });

  it('GIVEN a tag with a protocol-relative spoiler image THEN it becomes https', () => {
    const tag = tagSchema.parse({
      id: 1,
      name: 'x',
      slug: 'x',
      images: 0,
      spoiler_image_uri: '//derpicdn.net/media/x.svg',
    });
    expect(absolutiseTag(tag, derpibooru).spoiler_image_uri).toBe('https://derpicdn.net/media/x.svg');
  });

  it('GIVEN a profile with odd avatar and award URLs THEN they become https or null', () => {
    const user = userSchema.parse({
      id: 1,
      name: 'n',
      slug: 'n',
      created_at: '2020-01-01T00:00:00Z',
      avatar_url: 'http://derpicdn.net/avatars/a.png',
      awards: [{ image_url: '/media/b.svg' }, { image_url: 'data:,x' }],
    });
    const out = absolutiseUser(user, derpibooru);
    expect(out.avatar_url).toBe('https://derpicdn.net/avatars/a.png');
    expect(out.awards.map((a) => a.image_url)).toEqual(['https://derpibooru.org/media/b.svg', null]);
  });
});
