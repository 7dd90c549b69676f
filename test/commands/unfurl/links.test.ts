import { describe, expect, it } from 'vitest';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { extractUnfurlLinks, maskSuppressedText } from '../../../commands/unfurl/unfurl.js';
import { knownSite, resolveSite } from '../../../src/philomena/sites.js';

const sites = createSiteDirectory({
  defaultSite: resolveSite('http://127.0.0.1:8080'),
  defaultFilterId: undefined,
});
const links = (text: string) =>
  extractUnfurlLinks(text, sites.recogniseLinks).map((link) => `${link.site.id}#${link.imageId}`);

describe('extractUnfurlLinks', () => {
  it.each<[string, string, string[]]>([
    ['a plain link', 'look https://derpibooru.org/images/1', ['derpibooru#1']],
    [
      'links of several sites in order',
      'https://furbooru.org/5 and https://derpibooru.org/images/7',
      ['furbooru#5', 'derpibooru#7'],
    ],
    ['the configured custom site', 'http://127.0.0.1:8080/images/9', ['custom:127.0.0.1:8080#9']],
    ['a duplicate', 'https://derpibooru.org/1 https://derpibooru.org/images/1', ['derpibooru#1']],
    ['inline code', 'see `https://derpibooru.org/images/1` ok', []],
    ['double-backtick inline code', 'see ``https://derpibooru.org/images/1 ` x`` ok', []],
    ['a fenced block', '```\nhttps://derpibooru.org/images/1\n```', []],
    ['a fenced block with a language', '```txt\nhttps://derpibooru.org/images/1```', []],
    ['after a closed fence', '```x``` https://derpibooru.org/images/2', ['derpibooru#2']],
    ['an unclosed fence (Discord shows it as text)', '``` https://derpibooru.org/images/3', ['derpibooru#3']],
    ['a <wrapped> link', '<https://derpibooru.org/images/1>', []],
    [
      'a wrapped and a bare link',
      '<https://derpibooru.org/images/1> https://derpibooru.org/images/2',
      ['derpibooru#2'],
    ],
    ['a spoilered link', '||https://derpibooru.org/images/1||', []],
    ['a masked link', '[pic](https://derpibooru.org/images/4)', ['derpibooru#4']],
    ['a look-alike host', 'https://derpibooru.org.evil.test/images/1', []],
    ['no link at all', 'just chatting about image 1', []],
    ['a CDN link', 'https://derpicdn.net/img/2024/1/2/123/large.png', ['derpibooru#123']],
  ])('GIVEN %s THEN the links are %j', (_name, text, expected) => {
    expect(links(text)).toEqual(expected);
  });

  it('GIVEN masked text THEN offsets are kept', () => {
    const text = '`a` <https://x.test> ||s|| ```c```';
    expect(maskSuppressedText(text)).toHaveLength(text.length);
    expect(maskSuppressedText(text).trim()).toBe('');
  });

  it('GIVEN the site directory THEN the default site is listed once with the known sites', () => {
    const derpi = createSiteDirectory({ defaultSite: knownSite('derpibooru')!, defaultFilterId: 5 });
    expect(derpi.all.filter((s) => s.id === 'derpibooru')).toHaveLength(1);
    expect(derpi.filterFor(knownSite('derpibooru')!, {})).toBe(5);
    expect(derpi.filterFor(knownSite('furbooru')!, {})).toBeUndefined();
    expect(derpi.filterFor(knownSite('furbooru')!, { furbooru: 7 })).toBe(7);
    expect(derpi.filterFor(knownSite('derpibooru')!, { derpibooru: 9 })).toBe(9);
  });
});
