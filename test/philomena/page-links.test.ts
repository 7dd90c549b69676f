/**
 * Links to board pages that are not images (src/philomena/links.ts `createPageLinkRecogniser`): tag pages
 * and searches of the given sites, in order, each once; the URL's own host decides, CDN hosts serve no
 * pages, and image links are left to the image recogniser.
 */
import { describe, expect, it } from 'vitest';
import { createPageLinkRecogniser } from '../../src/philomena/links.js';
import { KNOWN_SITES } from '../../src/philomena/sites.js';

const recognise = createPageLinkRecogniser(KNOWN_SITES);
const brief = (text: string) =>
  recognise(text).map((link) => {
    switch (link.kind) {
      case 'tag':
        return [link.kind, link.site.id, link.slug];
      case 'search':
        return [link.kind, link.site.id, link.query];
      case 'comment':
        return [link.kind, link.site.id, `${link.imageId}#${link.commentId}`];
      case 'topic':
        return [link.kind, link.site.id, `${link.forum}/${link.topic}#${link.postId ?? ''}`];
      case 'gallery':
        return [link.kind, link.site.id, String(link.galleryId)];
      case 'profile':
        return [link.kind, link.site.id, link.slug];
    }
  });

describe('page links', () => {
  it('GIVEN tag pages THEN their slugs, decoded (`+` is a space in a slug)', () => {
    expect(
      brief('https://derpibooru.org/tags/twilight+sparkle and https://furbooru.org/tags/artist-colon-foo.'),
    ).toEqual([
      ['tag', 'derpibooru', 'twilight sparkle'],
      ['tag', 'furbooru', 'artist-colon-foo'],
    ]);
    expect(brief('https://derpibooru.org/tags/oc%3Alittlepip')).toEqual([
      ['tag', 'derpibooru', 'oc:littlepip'],
    ]);
  });

  it('GIVEN searches THEN their queries; a search without q, or an empty one, is not a link', () => {
    expect(
      brief('https://derpibooru.org/search?q=pony%2C+cute&sf=score and https://derpibooru.org/search?sf=x'),
    ).toEqual([['search', 'derpibooru', 'pony, cute']]);
    expect(brief('https://derpibooru.org/search?q=')).toEqual([]);
  });

  it('GIVEN the same page twice, image links, other hosts and CDN hosts THEN each page once and nothing else', () => {
    expect(
      brief(
        [
          'https://derpibooru.org/tags/safe',
          'https://derpibooru.org/tags/safe',
          'https://derpibooru.org/images/1',
          'https://derpibooru.org.evil.test/tags/safe',
          'https://derpicdn.net/tags/safe',
          'https://derpibooru.org/tags/safe/edit',
          'xhttps://derpibooru.org/tags/pony',
        ].join(' '),
      ),
    ).toEqual([['tag', 'derpibooru', 'safe']]);
  });

  it('GIVEN a broken percent-escape THEN no link and no exception', () => {
    expect(brief('https://derpibooru.org/tags/%E0%A4%A and https://derpibooru.org/search?q=%')).toEqual([
      ['search', 'derpibooru', '%'],
    ]);
  });

  it('GIVEN comment links in both forms THEN the image and the comment', () => {
    expect(
      brief(
        'https://derpibooru.org/images/5#comment_9 https://derpibooru.org/images/6/comments/10 https://derpibooru.org/7#comment_11',
      ),
    ).toEqual([
      ['comment', 'derpibooru', '5#9'],
      ['comment', 'derpibooru', '6#10'],
      ['comment', 'derpibooru', '7#11'],
    ]);
  });

  it('GIVEN forum topics and posts THEN forum, topic and post', () => {
    expect(
      brief(
        'https://derpibooru.org/forums/art/topics/artists-group-chat https://derpibooru.org/forums/dis/topics/bot-testing?post_id=3000001#post_3000001',
      ),
    ).toEqual([
      ['topic', 'derpibooru', 'art/artists-group-chat#'],
      ['topic', 'derpibooru', 'dis/bot-testing#3000001'],
    ]);
  });

  it('GIVEN galleries and profiles THEN their id and slug', () => {
    expect(brief('https://derpibooru.org/galleries/25220 https://derpibooru.org/profiles/Some+Pony')).toEqual(
      [
        ['gallery', 'derpibooru', '25220'],
        ['profile', 'derpibooru', 'Some Pony'],
      ],
    );
  });
});
