import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CREDIT_NAMESPACES,
  RATINGS,
  creditsOf,
  isSafe,
  isTagSlug,
  lastTerm,
  parseTagList,
  quoteTag,
  ratingOf,
  tagNameOfSlug,
  tagPath,
  tagSlug,
  wellFormed,
} from '../../src/philomena/tags.js';

describe('ratingOf / isSafe', () => {
  const cases: [string, string[], string[], boolean][] = [
    ['only safe', ['safe', 'pony', 'artist:foo'], ['safe'], true],
    ['no rating tag', ['pony', 'artist:foo'], [], false],
    ['no tags', [], [], false],
    ['suggestive', ['suggestive', 'pony'], ['suggestive'], false],
    [
      'explicit and grimdark and grotesque',
      ['explicit', 'grimdark', 'grotesque'],
      ['explicit', 'grimdark', 'grotesque'],
      false,
    ],
    ['semi-grimdark', ['semi-grimdark'], ['semi-grimdark'], false],
    ['questionable', ['questionable'], ['questionable'], false],
    ['safe mis-tagged with another rating', ['safe', 'semi-grimdark'], ['safe', 'semi-grimdark'], false],
    ['case and spaces', [' Safe '], ['safe'], true],
    ['look-alike tags are not ratings', ['safe for work', 'explicit content', 'artist:safe'], [], false],
    ['safe twice', ['safe', 'safe'], ['safe'], true],
  ];
  it.each(cases)('GIVEN %s THEN the rating set and safety are right', (_name, tags, ratings, safe) => {
    expect([...ratingOf(tags)].sort()).toEqual([...ratings].sort());
    expect(isSafe(tags)).toBe(safe);
  });

  it('GIVEN the rating list THEN it holds the seven Derpibooru ratings', () => {
    expect(RATINGS).toEqual([
      'safe',
      'suggestive',
      'questionable',
      'explicit',
      'semi-grimdark',
      'grimdark',
      'grotesque',
    ]);
  });
});

describe('creditsOf', () => {
  it('GIVEN tags of every credit namespace THEN they come in namespace order, then by name', () => {
    const tags = [
      'safe',
      'commissioner:zed',
      'generator:stable diffusion',
      'artist:zebra',
      'prompter:p',
      'oc:artist',
      'photographer:ph',
      'editor:ed',
      'artist:alpha',
      'colorist:col',
    ];
    expect(creditsOf(tags).map((c) => `${c.namespace}|${c.name}|${c.tag}`)).toEqual([
      'artist|alpha|artist:alpha',
      'artist|zebra|artist:zebra',
      'colorist|col|colorist:col',
      'editor|ed|editor:ed',
      'photographer|ph|photographer:ph',
      'prompter|p|prompter:p',
      'generator|stable diffusion|generator:stable diffusion',
      'commissioner|zed|commissioner:zed',
    ]);
    expect(CREDIT_NAMESPACES).toHaveLength(7);
  });

  it('GIVEN names with colons and spaces THEN the name is everything after the first colon, trimmed', () => {
    expect(creditsOf(['artist: foo:bar baz '])).toEqual([
      { namespace: 'artist', name: 'foo:bar baz', tag: 'artist: foo:bar baz' },
    ]);
  });

  it('GIVEN non-credit and empty credit tags THEN they are ignored', () => {
    expect(
      creditsOf(['artist needed', 'anonymous artist', 'artist:', ':foo', 'oc:x', 'artistic:x', 'screencap']),
    ).toEqual([]);
  });

  it('GIVEN the same credit twice THEN it is listed once', () => {
    expect(creditsOf(['artist:a', 'artist:a'])).toHaveLength(1);
  });
});

describe('tagSlug / tagPath', () => {
  const cases: [string, string][] = [
    ['artist:foo bar', 'artist-colon-foo+bar'],
    ['safe', 'safe'],
    ['semi-grimdark', 'semi-dash-grimdark'],
    ['a/b\\c', 'a-fwslash-b-bwslash-c'],
    ['mr. c+d', 'mr-dot-+c-plus-d'],
    ['-', '-dash-'],
    ['artist:-dash-', 'artist-colon--dash-dash-dash-'],
    ['oc:blue sky.', 'oc-colon-blue+sky-dot-'],
  ];
  it.each(cases)('GIVEN the name %j THEN the slug is %j', (name, slug) => {
    expect(tagSlug(name)).toBe(slug);
    expect(tagNameOfSlug(slug)).toBe(name);
  });

  it("GIVEN names with URL-special characters THEN the path keeps the slug's + and percent-encodes the rest", () => {
    expect(tagPath('artist:foo bar')).toBe('artist-colon-foo+bar');
    expect(tagPath("pinkie's 100% #1 ?q&x=é (x)!*")).toBe(
      'pinkie%27s+100%25+%231+%3Fq%26x%3D%C3%A9+%28x%29%21%2A',
    );
  });

  it('GIVEN a slug instead of a name THEN tagPath does not escape it twice', () => {
    expect(isTagSlug('artist-colon-foo+bar')).toBe(true);
    expect(isTagSlug('semi-grimdark')).toBe(false);
    expect(isTagSlug('artist:foo')).toBe(false);
    expect(tagPath('artist-colon-foo+bar')).toBe('artist-colon-foo+bar');
    expect(tagPath('semi-grimdark')).toBe('semi-dash-grimdark');
  });

  it('GIVEN any name THEN decoding the path as the server does gives back the slug, and the slug the name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (name) => {
        const slug = tagSlug(name);
        // Phoenix percent-decodes path segments without turning `+` into a space.
        expect(decodeURIComponent(tagPath(slug))).toBe(slug);
        expect(tagNameOfSlug(slug)).toBe(name);
        expect(tagPath(slug)).not.toMatch(/[/?#\s]/);
      }),
    );
  });
});

describe('wellFormed / tagPath with broken UTF-16', () => {
  it.each([
    ['\ud83d', '\ufffd'],
    ['a\udc00b', 'a\ufffdb'],
    ['\udc00\ud83d', '\ufffd\ufffd'],
    ['pony \ud83d\ude00', 'pony \ud83d\ude00'],
    ['\ud83d\ude00\ud83d', '\ud83d\ude00\ufffd'],
    ['plain', 'plain'],
  ])('GIVEN %j THEN lone surrogates become U+FFFD and pairs stay', (text, expected) => {
    expect(wellFormed(text)).toBe(expected);
  });

  it('GIVEN a name that is a lone surrogate, or ends in half an emoji THEN tagPath encodes U+FFFD instead of throwing URIError', () => {
    expect(tagPath('\ud83d')).toBe('%EF%BF%BD');
    expect(tagPath('artist:x \ud83d')).toBe('artist-colon-x+%EF%BF%BD');
    expect(tagPath('\udc00-\ud800')).toBe('%EF%BF%BD-dash-%EF%BF%BD');
  });

  it('GIVEN any UTF-16 string, surrogate halves included THEN tagPath never throws and reads it as its well-formed form', () => {
    const codeUnits = fc.array(
      fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff })),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(codeUnits, (units) => {
        const name = String.fromCharCode(...units);
        const fixed = wellFormed(name);
        expect(() => encodeURIComponent(fixed)).not.toThrow();
        expect(fixed).toHaveLength(name.length);
        expect(tagPath(name)).toBe(tagPath(fixed));
      }),
      { numRuns: 300 },
    );
  });
});

describe('quoteTag', () => {
  it.each([
    ['artist:foo', '"artist:foo"'],
    ['artist:foo "x"', '"artist:foo \\"x\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['a, b OR c', '"a, b OR c"'],
  ])('GIVEN %j THEN the quoted term is %j', (name, quoted) => {
    expect(quoteTag(name)).toBe(quoted);
  });
});

describe('parseTagList / lastTerm', () => {
  it('GIVEN comma-separated input with blanks THEN the tags are trimmed and empties dropped', () => {
    expect(parseTagList(' safe, pinkie pie ,, ,artist:foo,')).toEqual(['safe', 'pinkie pie', 'artist:foo']);
    expect(parseTagList('')).toEqual([]);
  });

  it.each([
    ['safe, pinkie pi', 'safe, ', 'pinkie pi'],
    ['pinkie', '', 'pinkie'],
    ['', '', ''],
    ['safe,', 'safe,', ''],
    ['safe,   art', 'safe,   ', 'art'],
    ['a, b ,c ', 'a, b ,', 'c'],
  ])('GIVEN %j THEN prefix %j and term %j', (text, prefix, term) => {
    expect(lastTerm(text)).toEqual({ prefix, term });
  });
});
