import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLinkRecogniser } from '../../src/philomena/links.js';
import { KNOWN_SITES, resolveSite } from '../../src/philomena/sites.js';

const local = resolveSite('http://127.0.0.1:8080');
const sub = resolveSite('https://booru.example/sub', { cdnHosts: ['files.example'] });
const recognise = createLinkRecogniser([...KNOWN_SITES, local, sub]);

function found(text: string): string[] {
  return recognise(text).map((link) => `${link.site.id}#${link.imageId}`);
}

describe('createLinkRecogniser: the link forms', () => {
  const cases: [string, string, string[]][] = [
    ['image page', 'https://derpibooru.org/images/2028858', ['derpibooru#2028858']],
    ['bare id', 'https://derpibooru.org/2028858', ['derpibooru#2028858']],
    ['image zero (it exists on Derpibooru)', 'https://derpibooru.org/images/0', ['derpibooru#0']],
    ['www and http', 'http://www.derpibooru.org/images/5', ['derpibooru#5']],
    ['alias host', 'https://trixiebooru.org/images/5', ['derpibooru#5']],
    ['upper-case host and scheme', 'HTTPS://DerpiBooru.ORG/images/5', ['derpibooru#5']],
    ['query and fragment', 'https://derpibooru.org/images/5?q=safe&page=2#comment_9', ['derpibooru#5']],
    ['bare id with query', 'https://derpibooru.org/5?q=safe', ['derpibooru#5']],
    ['comments sub-page', 'https://derpibooru.org/images/5/comments', ['derpibooru#5']],
    ['thumbnail', 'https://derpicdn.net/img/2019/5/2/2028858/thumb.png', ['derpibooru#2028858']],
    ['thumb_small', 'https://derpicdn.net/img/2019/5/2/2028858/thumb_small.gif', ['derpibooru#2028858']],
    ['view short form', 'https://derpicdn.net/img/view/2019/5/2/2028858.png', ['derpibooru#2028858']],
    [
      'view with tag slugs',
      'https://derpicdn.net/img/view/2019/5/2/2028858__safe_artist-colon-kam_earth+pony.png',
      ['derpibooru#2028858'],
    ],
    ['download form', 'https://derpicdn.net/img/download/2019/5/2/2028858__safe.png', ['derpibooru#2028858']],
    [
      'download short form',
      'https://derpicdn.net/img/download/2019/5/2/2028858.webm',
      ['derpibooru#2028858'],
    ],
    ['furbooru page', 'https://furbooru.org/images/77', ['furbooru#77']],
    ['furbooru cdn', 'https://furrycdn.org/img/view/2021/3/4/77.jpg', ['furbooru#77']],
    ['tantabus', 'https://tantabus.ai/images/3', ['tantabus#3']],
    ['tantabus cdn', 'https://tantabuscdn.net/img/2023/1/1/3/medium.png', ['tantabus#3']],
    ['ponybooru cdn', 'https://cdn.ponybooru.org/img/2022/2/2/9/large.png', ['ponybooru#9']],
    ['manebooru cdn', 'https://static.manebooru.art/img/view/2022/2/2/9.png', ['manebooru#9']],
    ['ponerpics', 'https://ponerpics.org/images/9', ['ponerpics#9']],
    ['local site page', 'http://127.0.0.1:8080/images/4', [`${local.id}#4`]],
    ['local site serves /img/ itself', 'http://127.0.0.1:8080/img/2024/1/1/4/thumb.png', [`${local.id}#4`]],
    ['site under a path', 'https://booru.example/sub/images/8', [`${sub.id}#8`]],
    ['site under a path, custom cdn', 'https://files.example/img/view/2024/1/1/8.png', [`${sub.id}#8`]],
    ['page of a site under a path, without it', 'https://booru.example/images/8', []],
  ];
  it.each(cases)('GIVEN a %s link THEN it is found', (_name, text, expected) => {
    expect(found(`look ${text} here`)).toEqual(expected);
  });
});

describe('createLinkRecogniser: chat around links', () => {
  it.each([
    ['(https://derpibooru.org/images/5)', 'https://derpibooru.org/images/5'],
    ['see https://derpibooru.org/images/5.', 'https://derpibooru.org/images/5'],
    ['https://derpibooru.org/images/5, and', 'https://derpibooru.org/images/5'],
    ['<https://derpibooru.org/images/5>', 'https://derpibooru.org/images/5'],
    ['[pic](https://derpibooru.org/images/5)!', 'https://derpibooru.org/images/5'],
    ['||https://derpibooru.org/images/5||', 'https://derpibooru.org/images/5'],
    ['"https://derpibooru.org/5?"', 'https://derpibooru.org/5'],
    ['**https://derpicdn.net/img/view/2019/5/2/5.png**', 'https://derpicdn.net/img/view/2019/5/2/5.png'],
  ])('GIVEN %j THEN the url is %j without the punctuation', (text, url) => {
    const links = recognise(text);
    expect(links.map((l) => l.url)).toEqual([url]);
    expect(text.slice(links[0]?.index, (links[0]?.index ?? 0) + url.length)).toBe(url);
  });

  it('GIVEN several links with repeats THEN each (site, id) comes once, in order of appearance', () => {
    const text =
      'a https://derpibooru.org/images/2 b https://furbooru.org/images/2 c https://derpicdn.net/img/2020/1/1/2/thumb.png ' +
      'd https://trixiebooru.org/1 e https://derpibooru.org/images/2';
    const links = recognise(text);
    expect(links.map((l) => `${l.site.id}#${l.imageId}@${l.index}`)).toEqual([
      'derpibooru#2@2',
      'furbooru#2@36',
      `derpibooru#1@${text.indexOf('https://trixiebooru.org/1')}`,
    ]);
  });

  it('GIVEN a message without links THEN nothing is found', () => {
    expect(recognise('just chatting about derpibooru.org and image 5')).toEqual([]);
    expect(recognise('')).toEqual([]);
  });
});

describe('createLinkRecogniser: what is not a link of ours', () => {
  it.each([
    ['suffixed host', 'https://derpibooru.org.evil.test/images/1'],
    ['prefixed host', 'https://evilderpibooru.org/images/1'],
    ['userinfo trick', 'https://derpibooru.org@evil.test/1'],
    ['userinfo before our host', 'https://user@derpibooru.org/images/1'],
    ['host in the path', 'https://evil.test/derpibooru.org/images/1'],
    ['host in the query', 'https://evil.test/?u=https://derpibooru.org/images/1'],
    ['port-like junk', 'https://derpibooru.org:evil/1'],
    ['backslash trick', 'https://derpibooru.org\\@evil.test/images/1'],
    ['no scheme', 'derpibooru.org/images/1'],
    ['ftp', 'ftp://derpibooru.org/images/1'],
    ['glued to a word', 'xhttps://derpibooru.org/images/1'],
    ['id too big', 'https://derpibooru.org/images/99999999999999999'],
    ['id beyond safe integers', 'https://derpibooru.org/images/9999999999999999'],
    ['id with letters', 'https://derpibooru.org/images/12abc'],
    ['bare id followed by a path', 'https://derpibooru.org/5/edit'],
    ['other page', 'https://derpibooru.org/tags/safe'],
    ['bare id on the cdn', 'https://derpicdn.net/5'],
    ['image page on the cdn', 'https://derpicdn.net/images/5'],
    ['cdn path with junk', 'https://derpicdn.net/img/2019/5/2/x/thumb.png'],
    ['cdn file of an unknown host', 'https://evilcdn.net/img/view/2019/5/2/5.png'],
    ['negative id', 'https://derpibooru.org/images/-5'],
  ])('GIVEN a %s THEN nothing is found', (_name, text) => {
    expect(found(`see ${text} ok`)).toEqual([]);
  });

  it('GIVEN no sites THEN nothing is ever found', () => {
    expect(createLinkRecogniser([])('https://derpibooru.org/images/1')).toEqual([]);
  });

  it('GIVEN only Furbooru THEN Derpibooru links are not found', () => {
    const furOnly = createLinkRecogniser(KNOWN_SITES.filter((s) => s.id === 'furbooru'));
    expect(
      furOnly('https://derpibooru.org/images/1 https://furbooru.org/images/1').map((l) => l.site.id),
    ).toEqual(['furbooru']);
  });
});

describe('createLinkRecogniser: properties', () => {
  it('GIVEN any text THEN it never throws and every link is a non-negative safe id found at its index', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'https://derpibooru.org/images/',
        'https://derpicdn.net/img/view/2020/1/1/',
        'http://www.',
        'derpibooru.org',
        '/',
        '@',
        '.png',
        ')',
        ' ',
      ),
      fc.nat().map(String),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        for (const link of recognise(text)) {
          expect(Number.isSafeInteger(link.imageId) && link.imageId >= 0).toBe(true);
          expect(text.startsWith(link.url, link.index)).toBe(true);
        }
      }),
    );
  });

  it('GIVEN any positive safe id in any form THEN it is found back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom(
          (id: number) => `https://derpibooru.org/images/${id}`,
          (id: number) => `https://derpibooru.org/${id}`,
          (id: number) => `https://derpicdn.net/img/2020/12/31/${id}/large.jpg`,
          (id: number) => `https://derpicdn.net/img/view/2020/12/31/${id}__safe.jpg`,
        ),
        (id, form) => {
          expect(recognise(`x ${form(id)}.`).map((l) => l.imageId)).toEqual([id]);
        },
      ),
    );
  });
});

describe('createLinkRecogniser: every link form of every known site', () => {
  const ID = 2028858;
  const pageForms = (host: string): string[] => [
    `https://${host}/images/${ID}`,
    `https://${host}/${ID}`,
    `https://www.${host}/images/${ID}`,
    `http://${host}/images/${ID}`,
    `http://www.${host}/${ID}`,
    `https://${host}/images/${ID}?q=safe&sf=score#comment_1`,
    `https://${host}/${ID}#top`,
    `https://${host}/images/${ID}/`,
  ];
  const cdnForms = (host: string): string[] => [
    ...['thumb_tiny', 'thumb_small', 'thumb', 'small', 'medium', 'large', 'tall', 'full', 'rendered'].map(
      (size) => `https://${host}/img/2019/5/2/${ID}/${size}.png`,
    ),
    `https://${host}/img/2019/5/2/${ID}/thumb.gif`,
    `https://${host}/img/view/2019/5/2/${ID}.png`,
    `https://${host}/img/view/2019/5/2/${ID}__safe_artist-colon-kam_earth+pony.jpg`,
    `https://${host}/img/download/2019/5/2/${ID}.webm`,
    `https://${host}/img/download/2019/5/2/${ID}__safe.svg`,
    `http://${host}/img/view/2019/5/2/${ID}.png?width=100`,
  ];
  const cases = KNOWN_SITES.flatMap((site) => [
    ...site.hosts
      .filter((h) => !h.startsWith('www.'))
      .flatMap(pageForms)
      .map((url) => [site.id, url] as const),
    ...site.cdnHosts.flatMap(cdnForms).map((url) => [site.id, url] as const),
  ]);

  it('GIVEN the table THEN every known site has page forms, and every site with a CDN its file forms', () => {
    for (const site of KNOWN_SITES) {
      expect(cases.filter(([id]) => id === site.id).length).toBeGreaterThanOrEqual(
        site.cdnHosts.length > 0 ? 22 : 8,
      );
    }
  });

  it.each(cases)('GIVEN %s link %s THEN it is that site and image', (id, url) => {
    for (const text of [url, `look ${url}.`, `(${url})`, `<${url}>`]) {
      expect(found(text)).toEqual([`${id}#${ID}`]);
    }
  });

  const lookAlikes = KNOWN_SITES.flatMap((site) =>
    [site.host, ...site.cdnHosts].flatMap((host) => [
      `https://${host}.evil.test/images/${ID}`,
      `https://evil${host}/images/${ID}`,
      `https://evil-${host}/img/view/2019/5/2/${ID}.png`,
      `https://${host}@evil.test/${ID}`,
      `https://${host}:x@evil.test/img/view/2019/5/2/${ID}.png`,
      `https://evil.test/${host}/images/${ID}`,
      `https://evil.test/img/view/2019/5/2/${ID}.png?${host}`,
      `https://${host.replace('.', '-')}/images/${ID}`,
    ]),
  );

  it.each(lookAlikes)('GIVEN the look-alike %s THEN nothing is found', (url) => {
    expect(found(`see ${url} now`)).toEqual([]);
  });
});
