/**
 * Hostile input against the pure functions that stand between what a member types and what the board is
 * asked: tag quoting and slugs, the safe-search wrapper, tag-prefix autocomplete queries, and the link
 * recogniser. Many runs each; a failure prints its seed and a shrunk counterexample
 * (`fc.assert(..., { seed, path })` replays it).
 *
 * The board's reading of a query is modelled by the local Philomena's own parser (test/fakes/philomena
 * `parseQuery`), a second model beside the lexer model in test/bot/safety.test.ts: a query that escapes its
 * brackets in either model is a bug.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boardMarkdownToDiscord, MAX_INPUT } from '../../src/render/board-markdown.js';
import { safeSearchQuery } from '../../commands/shared/safety.js';
import { tagPrefixQuery } from '../../commands/shared/tag-suggestions.js';
import { maskSuppressedText, extractUnfurlLinks } from '../../commands/unfurl/unfurl.js';
import { createLinkRecogniser, createPageLinkRecogniser } from '../../src/philomena/links.js';
import { imageReferences } from '../../commands/unfurl/references.js';
import { KNOWN_SITES, resolveSite, type Site } from '../../src/philomena/sites.js';
import { quoteTag, tagNameOfSlug, tagPath, tagSlug } from '../../src/philomena/tags.js';
import { parseQuery, QueryError } from '../fakes/philomena/index.js';
import type { QueryNode } from '../fakes/philomena/query.js';
import {
  hostileText,
  lookAlikeAuthority,
  NASTY_PIECES,
  pathologicalText,
  PATHOLOGICAL_SHAPES,
  wellFormed,
} from './arbitraries.js';
import { httpProblems, messageMentionProblems } from './invariants.js';

/** The query as the board parses it, or null when the board would answer 400 (nothing is shown). */
function parsed(q: string): QueryNode | null {
  try {
    return parseQuery(q);
  } catch (error) {
    if (error instanceof QueryError) return null;
    throw error;
  }
}

const isSafeTerm = (node: QueryNode): boolean => node.kind === 'term' && !node.quoted && node.text === 'safe';

describe('safeSearchQuery outside age-restricted channels', () => {
  it('GIVEN any hostile query THEN the board reads `safe` as a top-level AND of the whole query', () => {
    fc.assert(
      fc.property(hostileText(16), (query) => {
        const q = safeSearchQuery(query, false);
        const tree = parsed(q);
        if (tree === null) return; // a 400 shows nothing
        if (q === 'safe') {
          expect(isSafeTerm(tree)).toBe(true);
          return;
        }
        // `(x), safe` must parse as AND(x, safe): an OR or NOT at the top, or `safe` missing, is an escape.
        expect(tree.kind).toBe('and');
        if (tree.kind !== 'and') return;
        expect(isSafeTerm(tree.children.at(-1)!)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('GIVEN one quoted tag name with brackets THEN it stays one quoted term inside the brackets', () => {
    expect(safeSearchQuery('"fluttershy (g4)"', false)).toBe('("fluttershy (g4)"), safe');
    expect(safeSearchQuery('"a \\" (b"', false)).toBe('("a \\" (b"), safe');
    // Two quoted terms are not one: the quote-aware reading is not trusted there.
    expect(safeSearchQuery('"(" x) OR (y ")"', false)).toBe('(\\"\\(\\" x\\) OR \\(y \\"\\)\\"), safe');
  });

  it('GIVEN the parser model THEN it does see the escape of a naive wrap (the property can fail)', () => {
    const naive = parsed('(pony) || (explicit), safe');
    expect(naive?.kind).toBe('or');
  });
});

describe('quoteTag', () => {
  it('GIVEN any tag name THEN the board reads exactly one quoted term holding the trimmed name', () => {
    fc.assert(
      fc.property(hostileText(10), (name) => {
        fc.pre(name.trim() !== '');
        expect(parseQuery(quoteTag(name))).toEqual({ kind: 'term', text: name.trim(), quoted: true });
      }),
      { numRuns: 3000 },
    );
  });

  it('GIVEN any tag name THEN its example search `("name"), safe` is that term AND safe', () => {
    fc.assert(
      fc.property(hostileText(10), (name) => {
        fc.pre(name.trim() !== '');
        expect(parseQuery(safeSearchQuery(quoteTag(name), false))).toEqual({
          kind: 'and',
          children: [
            { kind: 'term', text: name.trim(), quoted: true },
            { kind: 'term', text: 'safe', quoted: false },
          ],
        });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('tagPrefixQuery (autocomplete)', () => {
  it('GIVEN anything typed THEN the board reads one `name:` term: no operator, group or field of the member', () => {
    fc.assert(
      fc.property(hostileText(12), (typed) => {
        fc.pre(typed.trim() !== '');
        const tree = parsed(tagPrefixQuery(typed.trim()));
        if (tree === null) return;
        expect(tree.kind).toBe('term');
        if (tree.kind === 'term') expect(tree.text.startsWith('name:')).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('tag slugs and paths', () => {
  const API = 'https://derpibooru.org/api/v1/json/tags/';

  // Well-formed only: tagPath throws URIError on a lone surrogate (encodeURIComponent), reported to the
  // owner of src/philomena/tags.ts; the renderers guard themselves against it.
  it('GIVEN any well-formed name THEN the path is one segment the URL parser keeps as it is', () => {
    fc.assert(
      fc.property(hostileText(10).map(wellFormed), (name) => {
        const path = tagPath(name);
        expect(path).not.toMatch(/[/?#\\\s]/);
        const url = new URL(API + path);
        expect(url.pathname).toBe(new URL(API).pathname + path);
        expect(url.search).toBe('');
        expect(url.hash).toBe('');
        // The server percent-decodes the segment (keeping `+`) and compares with the slug.
        const slug = decodeURIComponent(path);
        expect([tagSlug(name), name]).toContain(slug);
        if (slug === tagSlug(name)) expect(tagNameOfSlug(slug)).toBe(name);
      }),
      { numRuns: 3000 },
    );
  });

  it('GIVEN a name with dot segments or encoded slashes THEN nothing resolves outside /tags/', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('..', '.', '/', '\\', '%2F', '%2e', '%2E%2E', '%5C', 'a', '?', '#'), {
          minLength: 1,
          maxLength: 8,
        }),
        (parts) => {
          const path = tagPath(parts.join(''));
          const url = new URL(API + path);
          expect(url.pathname.startsWith('/api/v1/json/tags/')).toBe(true);
          expect(url.pathname.slice('/api/v1/json/tags/'.length)).toBe(path);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('createLinkRecogniser', () => {
  // A named local host: for an IP base, resolveSite also lists `www.127.0.0.1:PORT`, which the URL
  // parser rejects (reported; the recogniser then finds links on a host no browser would open).
  const local = resolveSite('http://booru.test:4567');
  const sites: readonly Site[] = [...KNOWN_SITES, local];
  const recognise = createLinkRecogniser(sites);
  /** Every host (with port) a link may really point at. */
  const realHosts = new Set(sites.flatMap((site) => [...site.hosts, ...site.cdnHosts]));
  const hostsOf = (site: Site): string[] => [...site.hosts, ...site.cdnHosts];
  const allHosts = sites.flatMap(hostsOf);

  /** Every link found must point, as the WHATWG URL parser reads it, at one of the link's site's hosts. */
  function checkLinks(text: string): void {
    for (const link of recognise(text)) {
      expect(text.startsWith(link.url, link.index)).toBe(true);
      expect(Number.isSafeInteger(link.imageId) && link.imageId >= 0).toBe(true);
      const url = new URL(link.url);
      expect(url.username).toBe('');
      expect(url.password).toBe('');
      expect(realHosts.has(url.host)).toBe(true);
      expect(hostsOf(link.site)).toContain(url.host);
    }
  }

  const path = fc.oneof(
    fc.nat({ max: 10_000_000 }).map((id) => `/images/${id}`),
    fc.nat({ max: 10_000_000 }).map((id) => `/${id}`),
    fc.nat({ max: 10_000_000 }).map((id) => `/img/2024/1/2/${id}/large.png`),
    fc.nat({ max: 10_000_000 }).map((id) => `/img/view/2024/1/2/${id}.png`),
  );

  it('GIVEN look-alike hosts around every real host THEN no link is found on a host that is not real', () => {
    const lookAlike = fc
      .constantFrom(...allHosts)
      .chain((host) => fc.tuple(lookAlikeAuthority(host), fc.constantFrom('https', 'http', 'HTTPS'), path));
    fc.assert(
      fc.property(lookAlike, hostileText(3), ([authority, scheme, p], noise) => {
        const text = `${noise} ${scheme}://${authority}${p} ${noise}`;
        checkLinks(text);
        // The look-alike itself (not the noise) must not count unless the parser agrees it is real.
        let real = false;
        try {
          const parsedUrl = new URL(`${scheme}://${authority}${p}`);
          real = realHosts.has(parsedUrl.host) && parsedUrl.username === '' && parsedUrl.password === '';
        } catch {
          real = false;
        }
        if (!real) expect(recognise(`${scheme}://${authority}${p}`)).toEqual([]);
      }),
      { numRuns: 4000 },
    );
  });

  it('GIVEN arbitrary text around real and fake links THEN every link found is on its site’s real host', () => {
    const link = fc.oneof(
      fc.tuple(fc.constantFrom(...allHosts), path).map(([host, p]) => `https://${host}${p}`),
      fc
        .constantFrom(...allHosts)
        .chain((host) => fc.tuple(lookAlikeAuthority(host), path))
        .map(([authority, p]) => `https://${authority}${p}`),
    );
    const part = fc.oneof(hostileText(3), link, fc.constantFrom(...NASTY_PIECES));
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 10 }),
        fc.constantFrom('', ' ', '\n', '<', '>', '(', '`'),
        (parts, sep) => {
          checkLinks(parts.join(sep));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('GIVEN links fenced in code, `<...>` or spoilers THEN the unfurl text finds none of them', () => {
    const real = fc.tuple(fc.constantFrom(...allHosts), path).map(([host, p]) => `https://${host}${p}`);
    const fence = fc.constantFrom(
      (u: string) => `\`${u}\``,
      (u: string) => `\`\`${u}\`\``,
      (u: string) => `\`\`\`\n${u}\n\`\`\``,
      (u: string) => `\`\`\`js\nx ${u} y\n\`\`\``,
      (u: string) => `<${u}>`,
      (u: string) => `||${u}||`,
      (u: string) => `|| see ${u} ||`,
    );
    // Noise without the fence characters, so each fence closes where the generator put it.
    const noise = hostileText(4).map((text) => text.replace(/[`|<>]/g, ''));
    fc.assert(
      fc.property(fc.array(fc.tuple(noise, real, fence), { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.map(([n, u, f]) => `${n} ${f(u)} `).join('');
        expect(extractUnfurlLinks(text, recognise)).toEqual([]);
        expect(maskSuppressedText(text)).toHaveLength(text.length);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('boardMarkdownToDiscord over worst-case shapes (review H2)', () => {
  const site = KNOWN_SITES[0]!;

  it('GIVEN pathological shapes inside hostile text THEN no mention, no http URL, and output bounded by the input cap', () => {
    fc.assert(
      fc.property(pathologicalText(12_000), (text) => {
        const out = boardMarkdownToDiscord(text, site);
        expect(messageMentionProblems({ content: out })).toEqual([]);
        expect(httpProblems(out)).toEqual([]);
        expect(out.length).toBeLessThanOrEqual(10 * MAX_INPUT);
      }),
      { numRuns: 300 },
    );
  });

  it('GIVEN a URL followed by any run of ) . ] in any link form THEN the link never ends in an unbalanced ) or a .', () => {
    const form = fc.constantFrom(
      (u: string) => u,
      (u: string) => `"text":${u}`,
      (u: string) => `see ${u}`,
    );
    const tail = fc.array(fc.constantFrom(')', '.', ']', ').', '(', 'x'), { minLength: 1, maxLength: 3_000 });
    fc.assert(
      fc.property(form, tail, (wrap, run) => {
        const out = boardMarkdownToDiscord(wrap(`https://a.bc/p${run.join('')}`), site);
        const target = /\]\((https:\/\/a\.bc\/p[^)]*)\)|<(https:\/\/a\.bc\/p[^>]*)>/.exec(out);
        const url = decodeURIComponent(target?.[1] ?? target?.[2] ?? '');
        expect(url).not.toBe('');
        expect(url.endsWith('.')).toBe(false);
        const count = (c: string): number => url.split(c).length - 1;
        if (url.endsWith(')')) expect(count('(')).toBeGreaterThanOrEqual(count(')'));
      }),
      { numRuns: 300 },
    );
  });

  it.each(PATHOLOGICAL_SHAPES.filter(({ name }) => /URL|link/.test(name)))(
    'GIVEN $name inside chat THEN the link recogniser finds no image link in it',
    ({ make }) => {
      expect(createLinkRecogniser(KNOWN_SITES)(make(2_000))).toEqual([]);
    },
  );
});

describe('createPageLinkRecogniser and >>123 references', () => {
  const sites: readonly Site[] = [...KNOWN_SITES, resolveSite('http://booru.test:4567')];
  const recognisePages = createPageLinkRecogniser(sites);
  const pageHosts = new Set(sites.flatMap((site) => site.hosts));
  /** encodeURIComponent, for text that may hold lone surrogates (which it refuses). */
  const encode = (text: string): string => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?'));
  const pagePath = fc.oneof(
    hostileText(2).map((slug) => `/tags/${encode(slug)}`),
    hostileText(3).map((q) => `/search?q=${encode(q)}&sf=score`),
    fc
      .tuple(fc.nat({ max: 10_000_000 }), fc.nat({ max: 10_000_000 }))
      .map(([i, c]) => `/images/${i}#comment_${c}`),
    fc
      .tuple(fc.constantFrom('art', 'dis', 'meta'), hostileText(2), fc.option(fc.nat({ max: 10_000_000 })))
      .map(([f, t, p]) => `/forums/${f}/topics/${encode(t)}${p === null ? '' : `?post_id=${p}`}`),
    fc.constantFrom('/tags/%E0%A4%A', '/search?q=%', '/tags/', '/forums//topics/x', '/images/1#comment_'),
  );
  const link = fc.oneof(
    fc.tuple(fc.constantFrom(...pageHosts), pagePath).map(([host, p]) => `https://${host}${p}`),
    fc
      .constantFrom(...pageHosts)
      .chain((host) => fc.tuple(lookAlikeAuthority(host), pagePath))
      .map(([authority, p]) => `https://${authority}${p}`),
  );

  it('GIVEN hostile text around real and look-alike page links THEN no exception, and every page found is on its site’s own host, bounded', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(hostileText(3), link, fc.constantFrom(...NASTY_PIECES)), { maxLength: 10 }),
        (parts) => {
          const text = parts.join(' ');
          for (const page of recognisePages(text)) {
            expect(text.startsWith(page.url, page.index)).toBe(true);
            const url = new URL(page.url);
            expect(url.username + url.password).toBe('');
            expect(page.site.hosts).toContain(url.host);
            if (page.kind === 'search') expect(page.query.length).toBeLessThanOrEqual(1_000);
            if (page.kind === 'tag') expect(page.slug.length).toBeGreaterThan(0);
            if (page.kind === 'comment') expect(Number.isSafeInteger(page.commentId)).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('GIVEN hostile text THEN every reference found is `>>` and digits standing alone, with a safe id', () => {
    const site = KNOWN_SITES[0];
    if (site === undefined) throw new Error('no known site');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            hostileText(3),
            fc.constantFrom('>>1', '>>>2', 'a>>3', '>>4t', '>>99999999999999999', '> >>5'),
          ),
          {
            maxLength: 10,
          },
        ),
        (parts) => {
          const text = parts.join('');
          for (const ref of imageReferences(text, site)) {
            expect(text.startsWith(ref.url, ref.index)).toBe(true);
            expect(ref.url).toMatch(/^>>\d{1,12}[tsp]?$/);
            expect(Number.isSafeInteger(ref.imageId)).toBe(true);
            expect(text.charAt(ref.index - 1)).not.toBe('>');
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
