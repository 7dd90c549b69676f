/**
 * Hostile input against the pure functions that stand between what a member types and what the board is
 * asked: tag quoting and slugs, the safe-search wrapper, tag-prefix autocomplete queries, and the link
 * recogniser. Many runs each; a failure prints its seed and a shrunk counterexample
 * (`fc.assert(..., { seed, path })` replays it).
 *
 * The board's reading of a query is modelled by the local Philomena's own parser (test/fakes/philomena
 * `parseQuery`), a second model beside the lexer model in test/bot/safety.test.ts: a query that escapes its
 * brackets in either model is a bug.
 *
 * The Components V2 renderers (the card as a container, the search grid) get hostile board images: no
 * exception, Discord's limits, no mention, https only, and the rating rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIContainerComponent,
} from 'discord.js';
import { boardMarkdownToDiscord, MAX_INPUT } from '../../src/render/board-markdown.js';
import { countComponents, imageCardV2, v2TextLength, V2_CARD_TEXT_MIN } from '../../src/render/card-v2.js';
import { GRID_TEXT_MIN, imageGrid } from '../../src/render/grid.js';
import { sourceEntry } from '../../src/render/credit-and-sources.js';
import { cardLanguages } from './card-languages.js';
import { imageCard, type CardContext } from '../../src/render/image-card.js';
import { escapeInline } from '../../src/render/discord-text.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import { imageResponseSchema, type Image } from '../../src/philomena/schemas.js';
import { absolutiseImage } from '../../src/philomena/urls.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
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
  hostileTextUpTo,
  lookAlikeAuthority,
  NASTY_PIECES,
  pathologicalText,
  PATHOLOGICAL_SHAPES,
  wellFormed,
} from './arbitraries.js';
import { httpProblems, mentionProblems, messageMentionProblems, walkStrings } from './invariants.js';

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

describe('Components V2 renderers over hostile board images', () => {
  const site = KNOWN_SITES[0]!;
  const RATING_WORDS = [
    'safe',
    'suggestive',
    'questionable',
    'explicit',
    'semi-grimdark',
    'grimdark',
    'grotesque',
  ];
  /** Planted in plain tags, descriptions, pictures and text sources: must not show where gated. */
  const TAG_MARK = 'tagmarkv';
  const DESC_MARK = 'descmarkv';
  const PIC_MARK = 'picmarkv';
  const SOURCE_MARK = 'srcmarkv';

  /** The rating rule, written out rather than imported: the rating set is exactly {safe}. */
  const safeByRule = (tags: readonly string[]): boolean => {
    const ratings = new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => RATING_WORDS.includes(t)));
    return ratings.size === 1 && ratings.has('safe');
  };

  const tag = fc.oneof(
    fc.constantFrom(...RATING_WORDS, ' Safe ', 'EXPLICIT'),
    fc
      .tuple(fc.constantFrom('artist', 'colorist', 'prompter', 'generator', 'Artist'), hostileText(4))
      .map(([ns, name]) => `${ns}:${name}`),
    hostileText(4).map((text) => `${TAG_MARK} ${text}`),
  );
  const pictureUrl = fc.oneof(
    fc.constantFrom(
      `https://derpicdn.net/img/2024/1/1/1/${PIC_MARK}/large.png`,
      `http://derpicdn.net/img/2024/1/1/1/${PIC_MARK}/thumb.webm`,
      `//derpicdn.net/img/2024/1/1/1/${PIC_MARK}/full.gif`,
      `/img/2024/1/1/1/${PIC_MARK}/medium.svg`,
      `https://derpicdn.net/img/view/2024/1/1/${PIC_MARK}.webm`,
      `https://derpicdn.net/img/2024/1/1/1/${PIC_MARK}/full.mp4`,
      `data:image/png;base64,${PIC_MARK}`,
      `javascript:alert('${PIC_MARK}')`,
      `https://user:pw@evil.test/${PIC_MARK}.png`,
    ),
    hostileText(3).map(
      (text) =>
        `https://derpicdn.net/${PIC_MARK}/${encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?'))}.gif`,
    ),
    hostileText(3).map((text) => `http://${PIC_MARK}.test/${text}`),
    fc.nat({ max: 2500 }).map((n) => `https://derpicdn.net/${PIC_MARK}/${'x'.repeat(n)}.png`),
  );
  const source = fc.oneof(
    hostileText(4).map((text) => `${SOURCE_MARK} ${text}`),
    fc.constantFrom('http://evil.test/a', 'https://real.site@evil.test/x', 'javascript:alert(1)'),
    hostileText(3).map((text) => `https://evil.test/${text}?a=<@1>&b=@everyone`),
    fc.nat({ max: 1500 }).map((n) => `https://long.test/${'x'.repeat(n)}`),
  );
  const imageJson = fc.record({
    id: fc.nat({ max: 2 ** 31 }),
    hidden_from_users: fc.constant(false),
    animated: fc.boolean(),
    aspect_ratio: fc.constant(1),
    comment_count: fc.integer(),
    created_at: fc.constant('2024-01-01T00:00:00Z'),
    updated_at: fc.constant('2024-01-01T00:00:00Z'),
    first_seen_at: fc.constant('2024-01-01T00:00:00Z'),
    description: hostileTextUpTo(6000).map((text) => `${DESC_MARK} ${text} ${DESC_MARK}`),
    downvotes: fc.integer(),
    upvotes: fc.integer(),
    score: fc.integer(),
    faves: fc.integer(),
    format: fc.oneof(fc.constantFrom('png', 'jpg', 'gif', 'svg', 'webm', 'mp4'), hostileText(2)),
    width: fc.nat(),
    height: fc.nat(),
    mime_type: fc.constantFrom('image/png', 'image/gif', 'video/webm', 'video/mp4', 'image/svg+xml', 'x'),
    representations: fc.record(
      {
        full: pictureUrl,
        large: pictureUrl,
        medium: pictureUrl,
        small: pictureUrl,
        tall: pictureUrl,
        thumb: pictureUrl,
        thumb_small: pictureUrl,
        thumb_tiny: pictureUrl,
        webm: pictureUrl,
        mp4: pictureUrl,
      },
      { requiredKeys: ['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny'] },
    ),
    source_urls: fc.array(source, { maxLength: 30 }),
    spoilered: fc.boolean(),
    // Half start `safe`, so the gates past the rating rule (spoilers, processing, media) are reached often.
    tags: fc
      .tuple(fc.boolean(), fc.array(tag, { maxLength: 40 }))
      .map(([safe, rest]) => (safe ? ['safe', ...rest.filter((t) => !RATING_WORDS.includes(t))] : rest)),
    thumbnails_generated: fc.boolean(),
    view_url: pictureUrl,
    wilson_score: fc.constant(0.5),
  });
  const stubJson = fc.record({
    id: fc.nat({ max: 2 ** 31 }),
    hidden_from_users: fc.constant(true),
    deletion_reason: fc.option(hostileTextUpTo(2000), { nil: null }),
    duplicate_of: fc.option(fc.nat({ max: 2 ** 31 }), { nil: null }),
  });
  /** A generated board answer as the client reads it (schema, then absolutiseImage); tag ids 0..n-1. */
  const image: fc.Arbitrary<Image> = fc
    .oneof({ weight: 6, arbitrary: imageJson }, { weight: 1, arbitrary: stubJson })
    .map((json) => {
      const raw: Record<string, unknown> = { ...json };
      if (Array.isArray(raw['tags'])) {
        raw['tag_count'] = raw['tags'].length;
        raw['tag_ids'] = raw['tags'].map((_, i) => i);
      }
      const parsed = imageResponseSchema.safeParse({ image: raw });
      return parsed.success ? absolutiseImage(parsed.data.image, site) : undefined;
    })
    .filter((value): value is Image => value !== undefined);
  const filter = fc.option(
    fc.record({
      name: hostileTextUpTo(300),
      spoileredTagIds: fc.array(fc.nat({ max: 45 }), { maxLength: 10 }),
      hiddenTagIds: fc.array(fc.nat({ max: 45 }), { maxLength: 10 }),
    }),
    { nil: undefined },
  );
  const context: fc.Arbitrary<CardContext> = fc
    .record({
      ageRestricted: fc.boolean(),
      spoilerChannel: fc.boolean(),
      reveal: fc.boolean(),
      footerExtra: fc.option(fc.oneof(hostileText(3), fc.constant('@everyone 1 of 2')), { nil: undefined }),
      filter,
    })
    .map(({ footerExtra, filter: f, ...rest }) => ({
      site,
      ...rest,
      ...(footerExtra === undefined ? {} : { footerExtra }),
      ...(f === undefined ? {} : { filter: f }),
    }));

  const row = (prefix: string): APIActionRowComponent<APIComponentInMessageActionRow> => ({
    type: ComponentType.ActionRow,
    components: ['a', 'b', 'c'].map((id) => ({
      type: ComponentType.Button,
      style: ButtonStyle.Secondary,
      custom_id: `${prefix}${id}`,
      label: id,
    })),
  });

  function allText(value: unknown): string {
    const parts: string[] = [];
    walkStrings(value, (_path, text) => parts.push(text));
    return parts.join('\n');
  }

  /** Discord's limits (its OpenAPI and the documented ones), mentions, https: every problem found. */
  function v2Problems(containers: readonly APIContainerComponent[]): string[] {
    const body = { flags: 1 << 15, components: containers, allowed_mentions: NO_MENTIONS };
    const problems = [
      ...[...schemaIssues('MessageCreateRequest', body), ...messageLimitIssues(body)].map((issue) =>
        JSON.stringify(issue),
      ),
      ...httpProblems(containers),
    ];
    walkStrings(containers, (path, text) => {
      problems.push(...mentionProblems(path, text));
      if (/\.media\.url$/.test(path) && !text.startsWith('https://'))
        problems.push(`${path} is not https: ${text}`);
    });
    if (countComponents(containers) > 40) problems.push(`${countComponents(containers)} components`);
    if (v2TextLength(containers) > 4000) problems.push(`${v2TextLength(containers)} characters of text`);
    return problems;
  }

  function galleryItems(container: APIContainerComponent): { url: string; spoiler: boolean }[] {
    return container.components.flatMap((component) =>
      component.type === ComponentType.MediaGallery
        ? component.items.map((item) => ({ url: item.media.url, spoiler: item.spoiler === true }))
        : [],
    );
  }

  it.each(cardLanguages())(
    'GIVEN any image, context and budget in $locale THEN the V2 card keeps the limits, no mention, https only, and the rating rule',
    ({ say, runs }) => {
      fc.assert(
        fc.property(
          image,
          context,
          fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
          (img, ctx, textMax) => {
            const card = imageCard(img, { ...ctx, say });
            const v2 = imageCardV2(card, { rows: [row('')], ...(textMax === undefined ? {} : { textMax }) });
            expect(v2Problems([v2.container])).toEqual([]);
            expect(countComponents([v2.container])).toBeLessThanOrEqual(8);
            expect(v2TextLength([v2.container])).toBeLessThanOrEqual(
              Math.min(4000, Math.max(textMax ?? 4000, V2_CARD_TEXT_MIN)),
            );
            const items = galleryItems(v2.container);
            expect(items.length).toBeLessThanOrEqual(1);
            const text = allText(v2.container);
            expect(text).toContain(`/images/${img.id})`);
            if (img.kind !== 'image') {
              expect(items).toEqual([]);
              return;
            }
            expect(text).toContain(`**${say('card.field.credit')}**`);
            // A spoiler channel: every picture behind the spoiler, except the clicker's own Reveal.
            if (ctx.spoilerChannel === true && ctx.reveal !== true) {
              for (const item of items) expect(item.spoiler).toBe(true);
              expect(card.embed.image).toBeUndefined();
            }
            // A spoiler channel is a plain channel for the rating rule, whatever `ageRestricted` says.
            if ((!ctx.ageRestricted || ctx.spoilerChannel === true) && !safeByRule(img.tags)) {
              // Never pictured, not even behind a spoiler; no tags, description or text sources.
              expect(items).toEqual([]);
              for (const mark of [PIC_MARK, TAG_MARK, DESC_MARK, SOURCE_MARK])
                expect(text).not.toContain(mark);
            } else if (img.spoilered && ctx.reveal !== true) {
              expect(text).not.toContain(DESC_MARK);
              for (const item of items) expect(item.spoiler).toBe(true);
              const hidden = new Set(ctx.filter?.hiddenTagIds ?? []);
              if (ctx.filter === undefined || img.tag_ids.some((id) => hidden.has(id)))
                expect(items).toEqual([]);
            }
            if (!img.thumbnails_generated) expect(items).toEqual([]);
          },
        ),
        { numRuns: runs(400) },
      );
    },
  );

  it('GIVEN any page of images THEN the grid keeps the limits, no mention, https only, lists only what may be shown, each with its credit and sources', () => {
    fc.assert(
      fc.property(
        fc.array(image, { maxLength: 14 }),
        fc.boolean(),
        fc.boolean(),
        filter,
        hostileTextUpTo(500),
        fc.option(hostileTextUpTo(500), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
        (images, adult, spoilerChannel, f, heading, footer, textMax) => {
          const grid = imageGrid(images, {
            site,
            ageRestricted: adult,
            spoilerChannel,
            ...(f === undefined ? {} : { filter: f }),
            heading: escapeInline(heading),
            ...(footer === undefined ? {} : { footer }),
            rows: [row('grid-')],
            ...(textMax === undefined ? {} : { textMax }),
          });
          // A spoiler channel is a plain channel for the rating rule.
          const ageRestricted = adult && !spoilerChannel;
          if (textMax !== undefined)
            expect(v2TextLength([grid.container])).toBeLessThanOrEqual(
              Math.min(4000, Math.max(textMax, GRID_TEXT_MIN)),
            );
          expect(v2Problems([grid.container])).toEqual([]);
          const items = galleryItems(grid.container);
          expect(items.length).toBeLessThanOrEqual(10);
          expect(grid.shown.length).toBeLessThanOrEqual(10);
          const hidden = new Set(f?.hiddenTagIds ?? []);
          for (const shown of grid.shown) {
            expect(images).toContain(shown);
            if (!ageRestricted) expect(safeByRule(shown.tags)).toBe(true);
            expect(shown.tag_ids.some((id) => hidden.has(id))).toBe(false);
          }
          // Pictured: at most the shown ones with thumbnails, spoilered ones behind a spoiler.
          const picturable = grid.shown.filter((img) => img.thumbnails_generated);
          expect(items.length).toBeLessThanOrEqual(picturable.length);
          const spoilers = picturable.filter((img) => img.spoilered).length;
          if (spoilerChannel) for (const item of items) expect(item.spoiler).toBe(true);
          else expect(items.filter((item) => item.spoiler).length).toBeLessThanOrEqual(spoilers);
          // Listed in order, then those without room: together the first ten images that may be shown.
          const mayList = images.filter(
            (img) =>
              img.kind === 'image' &&
              (ageRestricted || safeByRule(img.tags)) &&
              !img.tag_ids.some((id) => hidden.has(id)),
          );
          expect([...grid.shown, ...grid.unlisted]).toEqual(mayList.slice(0, 10));
          // Every listed image on its own line with its first source and a count of the rest.
          const lines = allText(grid.container).split('\n');
          grid.shown.forEach((shown, i) => {
            const line = lines.find((l) => l.startsWith(`${i + 1}. [#${shown.id}](`)) ?? '';
            const sources = shown.source_urls.map((u) => u.trim()).filter((u) => u !== '');
            const [first] = sources;
            expect(line).toContain(first === undefined ? 'no source given' : sourceEntry(first));
            const left = sources.length - 1;
            if (left > 0) expect(line).toContain(`(+${left} more source${left === 1 ? '' : 's'})`);
          });
          const text = allText(grid.container);
          expect(text).not.toContain(DESC_MARK);
          if (!ageRestricted && images.every((img) => img.kind !== 'image' || !safeByRule(img.tags))) {
            expect(text).not.toContain(PIC_MARK);
            expect(grid.shown).toEqual([]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
