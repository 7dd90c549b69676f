/**
 * Board responses with hostile text, through the same path the client takes (the zod schema, then
 * absolutiseImage / absolutiseTag) into the pure renderers. Every text field of the generated images and
 * tags is hostile: mentions, Markdown, masked links to http and javascript:, bidi marks, NUL, zalgo, lone
 * surrogates and very long text. The cards must keep every Discord limit, never hold a mention or an
 * http URL, and keep the rating rule: outside age-restricted channels a non-safe image shows none of its
 * tags, description or picture (markers planted in those fields must not come out), and of its sources
 * only the links. A tag card there shows none of the tag's board text or its spoiler image.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boardMarkdownToDiscord,
  fitEmbeds,
  imageCard,
  tagCard,
  type CardContext,
} from '../../src/render/index.js';
import { imageResponseSchema, tagResponseSchema, type Image } from '../../src/philomena/schemas.js';
import { knownSite } from '../../src/philomena/sites.js';
import { absolutiseImage, absolutiseTag } from '../../src/philomena/urls.js';
import { hostileText, hostileTextUpTo } from './arbitraries.js';
import { cardLanguages } from './card-languages.js';
import {
  embedLimitProblems,
  embedUrlProblems,
  httpProblems,
  messageMentionProblems,
  walkStrings,
  withoutCode,
} from './invariants.js';

const site = knownSite('derpibooru')!;
const RATINGS = ['safe', 'suggestive', 'questionable', 'explicit', 'semi-grimdark', 'grimdark', 'grotesque'];
/** Planted in non-credit tags, the description and the picture URLs: must not show when gated. */
const TAG_MARK = 'tagmarkq';
const DESC_MARK = 'descmarkq';
const PIC_MARK = 'picmarkq';
/** Planted in sources that are not links (uploader free text): not shown where the image may not be. */
const SOURCE_MARK = 'srcmarkq';
/** Planted in a tag's descriptions, aliases and implications: not shown outside age-restricted channels. */
const TAG_TEXT_MARK = 'tagtextq';

/** The rating rule, written out here rather than imported: the rating set is exactly {safe}. */
function safeByRule(tags: readonly string[]): boolean {
  const ratings = new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => RATINGS.includes(t)));
  return ratings.size === 1 && ratings.has('safe');
}

const ratingTag = fc.oneof(
  fc.constantFrom(...RATINGS),
  fc.constantFrom(' Safe ', 'SAFE', 'Explicit', ' grimdark'),
);
const creditTag = fc
  .tuple(
    fc.constantFrom(
      'artist',
      'colorist',
      'editor',
      'photographer',
      'prompter',
      'generator',
      'commissioner',
      'Artist',
    ),
    hostileText(5),
  )
  .map(([ns, name]) => `${ns}:${name}`);
const plainTag = hostileText(5).map((text) => `${TAG_MARK} ${text}`);
const tags = fc.array(fc.oneof(ratingTag, creditTag, plainTag), { maxLength: 60 });

/** URLs as a board might send them: https, http, protocol- and root-relative, data:, junk, hostile. */
const pictureUrl = fc.oneof(
  fc.constantFrom(
    `https://derpicdn.net/img/2024/1/1/1/${PIC_MARK}-large.png`,
    `http://derpicdn.net/img/2024/1/1/1/${PIC_MARK}-large.png`,
    `//derpicdn.net/img/2024/1/1/1/${PIC_MARK}-large.png`,
    `/img/2024/1/1/1/${PIC_MARK}-large.svg`,
    `https://derpicdn.net/img/2024/1/1/1/${PIC_MARK}-thumb.webm`,
    `data:image/png;base64,${PIC_MARK}`,
    `javascript:alert('${PIC_MARK}')`,
    `https://user:pw@evil.test/${PIC_MARK}.png`,
    `HTTP://DERPICDN.NET/${PIC_MARK}.png`,
  ),
  hostileText(4).map((text) => `https://derpicdn.net/${PIC_MARK}/${text}`),
  hostileText(4).map((text) => `http://${PIC_MARK}.test/${text}`),
);

const source = fc.oneof(
  hostileText(6),
  hostileText(4).map((text) => `${SOURCE_MARK} ${text}`),
  fc.constantFrom(
    'http://evil.test/a',
    'https://real.site@evil.test/x',
    'javascript:alert(1)',
    'HTTP://UPPER.TEST/',
    '//no-scheme.test/x',
    ' http://spaced.test/ ',
  ),
  hostileText(3).map((text) => `http://evil.test/${text}`),
  hostileText(3).map((text) => `https://evil.test/${text}?a=<@1>&b=@everyone`),
  fc.nat({ max: 3000 }).map((n) => `https://long.test/${'x'.repeat(n)}`),
);

const representations = fc
  .record({
    full: pictureUrl,
    large: pictureUrl,
    medium: pictureUrl,
    small: pictureUrl,
    tall: pictureUrl,
    thumb: pictureUrl,
    thumb_small: pictureUrl,
    thumb_tiny: pictureUrl,
    webm: fc.option(pictureUrl, { nil: undefined }),
  })
  .map(({ webm, ...rest }) => (webm === undefined ? rest : { ...rest, webm }));

const visibleImageJson = fc.record({
  id: fc.nat({ max: 2 ** 31 }),
  hidden_from_users: fc.constant(false),
  aspect_ratio: fc.double({ min: 0.01, max: 100, noNaN: true }),
  comment_count: fc.integer(),
  created_at: fc.constantFrom(
    '2024-01-01T00:00:00Z',
    '2012-01-02T03:04:05',
    'not a date? no: 2020-05-05T00:00:00+02:00',
  ),
  updated_at: fc.constant('2024-01-01T00:00:00Z'),
  first_seen_at: fc.constant('2024-01-01T00:00:00Z'),
  description: fc.oneof(
    hostileTextUpTo(8000).map((text) => `${DESC_MARK} ${text} ${DESC_MARK}`),
    fc.constant(null),
  ),
  downvotes: fc.integer(),
  upvotes: fc.integer(),
  score: fc.integer(),
  faves: fc.integer(),
  format: fc.oneof(fc.constantFrom('png', 'jpg', 'gif', 'svg', 'webm', 'MP4'), hostileText(2)),
  width: fc.nat(),
  height: fc.nat(),
  mime_type: fc.oneof(fc.constantFrom('image/png', 'video/webm', 'image/svg+xml'), hostileText(2)),
  name: hostileText(4),
  representations,
  source_urls: fc.array(source, { maxLength: 20 }),
  spoilered: fc.boolean(),
  tags,
  thumbnails_generated: fc.boolean(),
  uploader: fc.option(hostileText(4), { nil: null }),
  view_url: pictureUrl,
  wilson_score: fc.double({ min: 0, max: 1, noNaN: true }),
  deletion_reason: fc.constant(null),
});

const hiddenImageJson = fc.record({
  id: fc.nat({ max: 2 ** 31 }),
  hidden_from_users: fc.constant(true),
  deletion_reason: fc.option(hostileTextUpTo(3000), { nil: null }),
  duplicate_of: fc.option(fc.nat({ max: 2 ** 31 }), { nil: null }),
});

/** A generated board answer parsed as the client parses it. */
const image: fc.Arbitrary<Image> = fc
  .oneof({ weight: 5, arbitrary: visibleImageJson }, { weight: 1, arbitrary: hiddenImageJson })
  .map((json) => {
    const raw = json as Record<string, unknown>;
    const withCounts =
      raw['hidden_from_users'] === false
        ? {
            ...raw,
            tag_count: (raw['tags'] as string[]).length,
            tag_ids: (raw['tags'] as string[]).map((_, i) => i + 1),
          }
        : raw;
    const parsed = imageResponseSchema.safeParse({ image: withCounts });
    return parsed.success ? absolutiseImage(parsed.data.image, site) : undefined;
  })
  .filter((value): value is Image => value !== undefined);

const context: fc.Arbitrary<CardContext> = fc
  .record({
    ageRestricted: fc.boolean(),
    reveal: fc.boolean(),
    // The bot's own page counter, or a mention, which a footer must not render either.
    footerExtra: fc.option(
      fc.oneof(
        fc.tuple(fc.nat(), fc.nat()).map(([n, total]) => `${n} of ${total}`),
        fc.constantFrom('@everyone', '<@1>', '@here 1 of 2'),
      ),
      { nil: undefined },
    ),
    filter: fc.option(
      fc.record({
        name: hostileTextUpTo(500),
        spoileredTagIds: fc.array(fc.nat({ max: 70 }), { maxLength: 30 }),
        hiddenTagIds: fc.array(fc.nat({ max: 70 }), { maxLength: 30 }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ footerExtra, filter, ...rest }) => ({
    site,
    ...rest,
    ...(footerExtra === undefined ? {} : { footerExtra }),
    ...(filter === undefined ? {} : { filter }),
  }));

function cardProblems(embeds: readonly unknown[]): string[] {
  return [
    ...embedLimitProblems(embeds),
    ...messageMentionProblems({ embeds }),
    ...httpProblems(embeds),
    ...embedUrlProblems(embeds),
  ];
}

function allText(value: unknown): string {
  const parts: string[] = [];
  walkStrings(value, (_path, text) => parts.push(text));
  return parts.join('\n');
}

describe.each(cardLanguages())('imageCard over hostile board images in $locale', ({ say, runs }) => {
  it('GIVEN any image and context THEN limits, no mention, https only, and the rating rule hold', () => {
    fc.assert(
      fc.property(image, context, (img, ctx) => {
        const card = imageCard(img, { ...ctx, say });
        expect(cardProblems([card.embed])).toEqual([]);
        if (img.kind !== 'image') {
          expect(card.embed.image).toBeUndefined();
          return;
        }
        // Every card links to the image page and has a credit line.
        expect(card.embed.url).toBe(`https://derpibooru.org/images/${img.id}`);
        expect(card.embed.fields?.some((f) => f.name === say('card.field.credit'))).toBe(true);
        const text = allText(card.embed);
        if (!ctx.ageRestricted && !safeByRule(img.tags)) {
          expect(card.gate).toBe('rating-restricted');
          expect(card.embed.image).toBeUndefined();
          expect(card.embed.thumbnail).toBeUndefined();
          expect(text).not.toContain(TAG_MARK);
          expect(text).not.toContain(DESC_MARK);
          expect(text).not.toContain(PIC_MARK);
          expect(text).not.toContain(SOURCE_MARK);
        } else if (img.spoilered && ctx.reveal !== true) {
          expect(card.embed.image).toBeUndefined();
          expect(text).not.toContain(DESC_MARK);
          expect(text).not.toContain(PIC_MARK);
        }
      }),
      { numRuns: runs(600) },
    );
  });

  it('GIVEN three hostile cards in one message (an unfurl) THEN fitEmbeds keeps the whole message within limits', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(image, context), { minLength: 1, maxLength: 10 }), (pairs) => {
        const embeds = fitEmbeds(pairs.map(([img, ctx]) => imageCard(img, { ...ctx, say }).embed));
        expect(embeds.length).toBeGreaterThan(0);
        expect(cardProblems(embeds)).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });
});

const slugLike = hostileText(4);
const markedSlug = hostileText(3).map((text) => `${TAG_TEXT_MARK}${text}`);
const tagJson = fc.record({
  id: fc.nat(),
  name: hostileTextUpTo(400),
  slug: slugLike,
  aliased_tag: fc.option(slugLike, { nil: null }),
  aliases: fc.array(fc.oneof(slugLike, markedSlug), { maxLength: 40 }),
  category: fc.option(fc.oneof(fc.constantFrom('rating', 'origin', 'character', 'oc'), hostileText(2)), {
    nil: null,
  }),
  description: hostileTextUpTo(6000).map((text) => `${TAG_TEXT_MARK} ${text}`),
  dnp_entries: fc.array(fc.constant({}), { maxLength: 3 }),
  images: fc.integer(),
  implied_by_tags: fc.array(fc.oneof(slugLike, markedSlug), { maxLength: 60 }),
  implied_tags: fc.array(fc.oneof(slugLike, markedSlug), { maxLength: 60 }),
  short_description: hostileTextUpTo(600).map((text) => `${TAG_TEXT_MARK} ${text}`),
  spoiler_image_uri: fc.option(pictureUrl, { nil: null }),
});

const tag = tagJson
  .map((json) => tagResponseSchema.safeParse({ tag: json }))
  .filter((parsed) => parsed.success)
  .map((parsed) => absolutiseTag(parsed.data!.tag, site));

describe('tagCard over hostile board tags', () => {
  it('GIVEN any tag, alias and example image THEN limits, no mention, https only, and the example is gated', () => {
    fc.assert(
      fc.property(
        tag,
        fc.option(tag, { nil: undefined }),
        fc.option(image, { nil: undefined }),
        fc.boolean(),
        (shown, aliasOf, example, ageRestricted) => {
          const embed = tagCard(shown, {
            site,
            ageRestricted,
            ...(example === undefined ? {} : { example }),
            ...(aliasOf === undefined ? {} : { aliasOf }),
          });
          expect(cardProblems([embed])).toEqual([]);
          if (!ageRestricted) {
            expect(allText(embed)).not.toContain(TAG_TEXT_MARK);
            expect(embed.thumbnail).toBeUndefined();
          }
          if (example !== undefined && example.kind === 'image') {
            const gated = (!ageRestricted && !safeByRule(example.tags)) || example.spoilered;
            if (gated) {
              expect(embed.image).toBeUndefined();
              expect(JSON.stringify(embed.image ?? null)).not.toContain(PIC_MARK);
            }
            if (!ageRestricted && !safeByRule(example.tags))
              expect(allText(embed)).not.toContain(SOURCE_MARK);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('boardMarkdownToDiscord', () => {
  /** Targets of masked links Discord would read: `](` not escaped by an odd run of backslashes. */
  function maskedTargets(text: string): string[] {
    const targets: string[] = [];
    for (let i = text.indexOf(']('); i !== -1; i = text.indexOf('](', i + 1)) {
      let slashes = 0;
      for (let j = i - 1; j >= 0 && text[j] === '\\'; j -= 1) slashes += 1;
      if (slashes % 2 === 0) targets.push(text.slice(i + 2, i + 2 + 200));
    }
    return targets;
  }

  const markdownish = fc
    .array(
      fc.oneof(
        hostileText(3),
        fc.constantFrom(
          '[a](http://evil.test/)',
          '[a](javascript:alert(1))',
          '[a](//evil.test/x)',
          '[a](/relative)',
          '[https://derpibooru.org](https://evil.test)',
          '[a](<http://evil.test/ x>)',
          '![i](http://evil.test/i.png)',
          '[a]( http://evil.test/ "t")',
          '[[a](http://x.test/)](https://y.test/)',
          '<http://evil.test/>',
          '&lt;@123&gt;',
          '&#64;everyone',
          '&#x3C;@&#x31;&#x3E;',
          '<b>@here</b>',
          '<br>',
          '```\n@everyone\n```',
          '`<@1>`',
          '[spoiler]@everyone[/spoiler]',
          '[==<@1>==]',
          '>>101',
          '\n> ',
          '\n# ',
          '\n- ',
          '||',
          '**',
          '*',
          '_',
          '~~',
        ),
      ),
      { maxLength: 20 },
    )
    .map((parts) => parts.join(''));

  it('GIVEN any board Markdown THEN no masked link to anything but https, no http URL, no mention', () => {
    fc.assert(
      fc.property(markdownish, (text) => {
        const out = boardMarkdownToDiscord(text, site);
        for (const target of maskedTargets(withoutCode(out))) expect(target).toMatch(/^<?https:\/\//);
        expect(httpProblems(out)).toEqual([]);
        expect(messageMentionProblems({ content: out })).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });
});
