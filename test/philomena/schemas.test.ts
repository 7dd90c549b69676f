import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorBodySchema,
  filterResponseSchema,
  filtersResponseSchema,
  forumsResponseSchema,
  galleriesResponseSchema,
  imageResponseSchema,
  imagesResponseSchema,
  issuePath,
  oembedSchema,
  postResponseSchema,
  postsResponseSchema,
  submitImageResponseSchema,
  tagResponseSchema,
  tagsResponseSchema,
  topicResponseSchema,
  topicsResponseSchema,
  userResponseSchema,
} from '../../src/philomena/schemas.js';
import { PHILOMENA_FIXTURES_DIR } from '../support/shared.js';

const FIXTURES = PHILOMENA_FIXTURES_DIR;

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
}

function only(list: unknown): unknown {
  if (!Array.isArray(list) || list.length !== 1) throw new Error('expected a bare array of one');
  return list[0];
}

interface Envelope {
  readonly schema: z.ZodType;
  /** The bodies to parse: most files are one verbatim response; SOURCES.txt says which need wrapping. */
  readonly bodies: (raw: unknown) => unknown[];
}

const verbatim = (schema: z.ZodType): Envelope => ({ schema, bodies: (raw) => [raw] });

/** Every fixture by a part of its name; a new file without an entry fails the test below. */
const ENVELOPES: readonly [string, Envelope][] = [
  ['2020_filter_179331_user_public_show_response', verbatim(filterResponseSchema)],
  ['2020_image_2028858_show_response', verbatim(imageResponseSchema)],
  [
    '2020_tags_oc-colon-littlepip_and_aliased_littlepip',
    // The outer object keyed by slug was added by whoever recorded it; the inner {"tag": ...} are verbatim.
    { schema: tagResponseSchema, bodies: (raw) => Object.values(raw as Record<string, unknown>) },
  ],
  [
    '2024_filter_56027_everything_as_array',
    { schema: filterResponseSchema, bodies: (raw) => [{ filter: only(raw) }] },
  ],
  ['2024_forum_topics_index_response', verbatim(topicsResponseSchema)],
  ['2024_forums_index_response', verbatim(forumsResponseSchema)],
  ['2024_profile_216494_as_array', { schema: userResponseSchema, bodies: (raw) => [{ user: only(raw) }] }],
  ['2024_search_comments_response', verbatim(commentsResponseSchema)],
  ['2024_search_galleries_response', verbatim(galleriesResponseSchema)],
  ['2024_search_images_response', verbatim(imagesResponseSchema)],
  ['2024_search_tags_response', verbatim(tagsResponseSchema)],
  ['2024_topic_posts_index_response', verbatim(postsResponseSchema)],
];

const files = readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));

describe('every recorded response parses', () => {
  it('GIVEN the fixture folder THEN it has files and every one has an envelope', () => {
    expect(files.length).toBeGreaterThanOrEqual(ENVELOPES.length);
    for (const name of files)
      expect(
        ENVELOPES.some(([part]) => name.includes(part)),
        name,
      ).toBe(true);
  });

  it.each(files)('GIVEN %s THEN its envelope schema parses it', (name) => {
    const envelope = ENVELOPES.find(([part]) => name.includes(part))?.[1];
    if (!envelope) throw new Error(`no envelope for ${name}`);
    const bodies = envelope.bodies(fixture(name));
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      const result = envelope.schema.safeParse(body);
      expect(
        result.success,
        result.success ? '' : `${issuePath(result.error)}: ${result.error.message}`,
      ).toBe(true);
    }
  });

  it('GIVEN the "Everything" filter THEN it also parses as a filter list', () => {
    const parsed = filtersResponseSchema.parse({
      filters: [only(fixture('derpibooru_2024_filter_56027_everything_as_array.json'))],
    });
    expect(parsed.filters[0]).toMatchObject({ id: 56027, name: 'Everything', system: true, user_id: null });
  });
});

describe('what the parsed fixtures hold', () => {
  it('GIVEN the 2020 image THEN timestamps are normalised to Z and source_url is folded into source_urls', () => {
    const { image } = imageResponseSchema.parse(fixture('derpibooru_2020_image_2028858_show_response.json'));
    if (image.kind !== 'image') throw new Error('expected a visible image');
    expect(image.created_at).toBe('2019-05-02T05:33:36.000Z');
    expect(image.updated_at).toBe('2020-04-10T00:14:35.000Z');
    expect(image.source_urls).toEqual(['https://twitter.com/KamDrawings/status/1123822106784010240']);
    expect(image.tags).toContain('artist:kam');
    expect(image.animated).toBe(false);
  });

  it('GIVEN the 2024 image search THEN total, image 0, a null orig hash and a 0.04 duration come through', () => {
    const parsed = imagesResponseSchema.parse(fixture('derpibooru_2024_search_images_response.json'));
    expect(parsed.total).toBe(2);
    const [first, second] = parsed.images;
    if (first?.kind !== 'image' || second?.kind !== 'image') throw new Error('expected visible images');
    expect(first.id).toBe(0);
    expect(first.duration).toBe(0.04);
    expect(first.source_urls).toEqual([]);
    expect(second.orig_sha512_hash).toBeNull();
    expect(second.created_at).toBe('2012-01-02T03:12:33.000Z');
  });

  it('GIVEN the 2020 tags THEN the alias has images 0, a slug in aliased_tag and a null category', () => {
    const raw = fixture('derpibooru_2020_tags_oc-colon-littlepip_and_aliased_littlepip.json') as Record<
      string,
      unknown
    >;
    const target = tagResponseSchema.parse(raw['oc-colon-littlepip']).tag;
    const alias = tagResponseSchema.parse(raw['littlepip']).tag;
    expect(target).toMatchObject({
      name: 'oc:littlepip',
      category: 'oc',
      namespace: 'oc',
      aliased_tag: null,
    });
    expect(alias).toMatchObject({
      aliased_tag: 'oc-colon-littlepip',
      images: 0,
      category: null,
      namespace: null,
    });
  });

  it('GIVEN the tag search THEN null categories and namespaces read as null', () => {
    const { tags, total } = tagsResponseSchema.parse(fixture('derpibooru_2024_search_tags_response.json'));
    expect(total).toBe(678);
    expect(
      tags.some((t) => t.category === null && t.namespace === null && t.spoiler_image_uri === null),
    ).toBe(true);
    expect(tags.find((t) => t.name === 'artist:fleet-wing')).toMatchObject({
      category: 'origin',
      namespace: 'artist',
    });
  });

  it('GIVEN the forum posts THEN a data: avatar and a null edited_at come through as sent', () => {
    const { posts } = postsResponseSchema.parse(fixture('derpibooru_2024_topic_posts_index_response.json'));
    expect(posts.some((p) => p.avatar?.startsWith('data:image/svg+xml') === true)).toBe(true);
    expect(posts.some((p) => p.edited_at === null)).toBe(true);
  });

  it('GIVEN the profile THEN its links and awards come through, null and empty award labels included', () => {
    const { user } = userResponseSchema.parse({
      user: only(fixture('derpibooru_2024_profile_216494_as_array.json')),
    });
    expect(user).toMatchObject({ id: 216494, name: 'Joey', role: 'user', uploads_count: 802 });
    expect(user.links).toEqual([
      { state: 'verified', user_id: 216494, created_at: '2018-12-10T04:53:18.000Z', tag_id: 379649 },
    ]);
    expect(user.awards.length).toBeGreaterThan(10);
    expect(user.awards[0]).toEqual({
      id: 45,
      label: 'Bendy Pony',
      title: 'Flexible',
      awarded_on: '2016-02-28T14:52:15.000Z',
      image_url: 'https://derpicdn.net/badges/2016/10/14/8712887b1e0d35ef02f8cf8.svg',
    });
    expect(user.awards.some((a) => a.label === null)).toBe(true);
    expect(user.awards.some((a) => a.label === '')).toBe(true);
  });

  it('GIVEN a profile with a null description and avatar, and no links or awards THEN it parses', () => {
    const { user } = userResponseSchema.parse({
      user: {
        id: 1,
        name: 'n',
        slug: 'n',
        created_at: '2020-01-01T00:00:00',
        description: null,
        avatar_url: null,
      },
    });
    expect(user).toMatchObject({ description: null, avatar_url: null, links: [], awards: [] });
    expect(user.created_at).toBe('2020-01-01T00:00:00.000Z');
  });

  it('GIVEN the Derpibooru galleries THEN user/user_id read as creator/creator_id', () => {
    const { galleries } = galleriesResponseSchema.parse(
      fixture('derpibooru_2024_search_galleries_response.json'),
    );
    expect(galleries[0]).toMatchObject({ id: 25220, creator: 'Rusher pony', creator_id: 718518 });
    expect(galleries[0]).not.toHaveProperty('user');
  });
});

const VISIBLE = {
  id: 7,
  hidden_from_users: false,
  aspect_ratio: 1,
  comment_count: 0,
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  first_seen_at: '2024-01-01T00:00:00Z',
  description: '',
  downvotes: 0,
  upvotes: 0,
  score: 0,
  faves: 0,
  format: 'PNG',
  width: 10,
  height: 10,
  mime_type: 'image/png',
  name: 'x.png',
  representations: Object.fromEntries(
    ['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny'].map((k) => [
      k,
      `https://derpicdn.net/img/2024/1/1/7/${k}.png`,
    ]),
  ),
  source_url: '',
  tag_count: 1,
  tag_ids: [1],
  tags: ['safe'],
  thumbnails_generated: true,
  view_url: 'https://derpicdn.net/img/view/2024/1/1/7.png',
  wilson_score: 0.5,
};

describe('the shapes that differ from the description (docs/board-behaviour.md)', () => {
  it('GIVEN a deleted stub and a merged stub THEN both are kind "hidden" with their reason or target', () => {
    const deleted = imageResponseSchema.parse({
      image: {
        id: 10,
        hidden_from_users: true,
        created_at: '2020-01-01T00:00:00',
        updated_at: '2020-01-01T00:00:00Z',
        first_seen_at: '2020-01-01T00:00:00Z',
        deletion_reason: 'Rule #1',
        duplicate_of: null,
      },
    }).image;
    const merged = imageResponseSchema.parse({
      image: { id: 11, hidden_from_users: true, duplicate_of: 12 },
    }).image;
    expect(deleted).toMatchObject({ kind: 'hidden', id: 10, deletion_reason: 'Rule #1', duplicate_of: null });
    expect(deleted.created_at).toBe('2020-01-01T00:00:00.000Z');
    expect(merged).toMatchObject({ kind: 'hidden', id: 11, duplicate_of: 12, deletion_reason: null });
  });

  it('GIVEN timestamps with no zone, an offset or Z THEN all are normalised to UTC with Z', () => {
    const parse = (created_at: string) => {
      const image = imageResponseSchema.parse({ image: { ...VISIBLE, created_at } }).image;
      return image.created_at;
    };
    expect(parse('2020-02-03T04:05:06')).toBe('2020-02-03T04:05:06.000Z');
    expect(parse('2020-02-03T04:05:06+02:00')).toBe('2020-02-03T02:05:06.000Z');
    expect(parse('2020-02-03T04:05:06.123456Z')).toBe('2020-02-03T04:05:06.123Z');
    expect(imageResponseSchema.safeParse({ image: { ...VISIBLE, created_at: 'yesterday' } }).success).toBe(
      false,
    );
  });

  it('GIVEN wilson_score 0, a null uploader, null intensities and an empty source_url THEN the image parses', () => {
    const image = imageResponseSchema.parse({
      image: { ...VISIBLE, wilson_score: 0, uploader: null, uploader_id: null, intensities: null },
    }).image;
    if (image.kind !== 'image') throw new Error('expected a visible image');
    expect(image).toMatchObject({ wilson_score: 0, uploader: null, uploader_id: null, intensities: null });
    expect(image.source_urls).toEqual([]);
    expect(image.format).toBe('png');
  });

  it('GIVEN a tag with null category, namespace, short description and spoiler image THEN it parses', () => {
    const { tag } = tagResponseSchema.parse({
      tag: {
        id: 1,
        name: 'x',
        slug: 'x',
        images: 3,
        category: null,
        namespace: null,
        short_description: null,
        spoiler_image_uri: null,
        description: null,
      },
    });
    expect(tag).toMatchObject({ category: null, namespace: null, short_description: '', description: '' });
  });

  it('GIVEN moderated bodies, a data: avatar, an anonymous author and a topic never replied to THEN they parse', () => {
    const base = {
      id: 1,
      author: 'Background Pony #1A2B',
      avatar: 'data:image/svg+xml;utf8,<svg/>',
      body: null,
      created_at: '2020-01-01T00:00:00',
      updated_at: '2020-01-01T00:00:00Z',
      edit_reason: null,
      edited_at: null,
      user_id: null,
    };
    expect(commentResponseSchema.parse({ comment: { ...base, image_id: 5 } }).comment).toMatchObject({
      body: null,
      user_id: null,
      avatar: base.avatar,
    });
    expect(postResponseSchema.parse({ post: base }).post).toMatchObject({ body: null, edited_at: null });
    const { topic } = topicResponseSchema.parse({
      topic: {
        slug: 'locked',
        title: 'Locked',
        post_count: 0,
        view_count: 0,
        sticky: false,
        locked: true,
        last_replied_to_at: null,
        user_id: null,
        author: 'Background Pony #1A2B',
      },
    });
    expect(topic).toMatchObject({ last_replied_to_at: null, locked: true });
  });

  it('GIVEN upstream galleries with creator/creator_id, null or missing THEN they parse the same way', () => {
    const { galleries } = galleriesResponseSchema.parse({
      galleries: [
        {
          id: 1,
          title: 't',
          description: 'd',
          spoiler_warning: '',
          thumbnail_id: 5,
          creator: 'Ann',
          creator_id: 3,
        },
        {
          id: 2,
          title: 't',
          description: null,
          spoiler_warning: null,
          thumbnail_id: null,
          creator: null,
          creator_id: null,
        },
        { id: 3, title: 't', description: '', spoiler_warning: '' },
      ],
    });
    expect(galleries.map((g) => [g.creator, g.creator_id])).toEqual([
      ['Ann', 3],
      [null, null],
      [null, null],
    ]);
  });

  it.each(['derpibooru', 'furbooru', 'tantabus', 'ponybooru', 'manebooru', 'site', 'my_booru'])(
    'GIVEN an oEmbed body with %s_* fields THEN they are gathered under site',
    (prefix) => {
      const body = oembedSchema.parse({
        author_name: 'kam',
        author_url: 'https://twitter.com/x',
        cache_age: 7200,
        [`${prefix}_comments`]: 63,
        [`${prefix}_id`]: 2028858,
        [`${prefix}_score`]: 1103,
        [`${prefix}_tags`]: ['safe', 'artist:kam'],
        provider_name: 'Derpibooru',
        provider_url: 'https://derpibooru.org',
        title: '#2028858 - safe, artist:kam - Derpibooru',
        type: 'photo',
        version: '1.0',
        thumbnail_url: 'https://derpicdn.net/img/2019/5/2/2028858/thumb.png',
        thumbnail_width: 250,
        thumbnail_height: 143,
      });
      expect(body.site).toEqual({ id: 2028858, score: 1103, comments: 63, tags: ['safe', 'artist:kam'] });
      expect(body.thumbnail_url).toBe('https://derpicdn.net/img/2019/5/2/2028858/thumb.png');
      expect(body.author_name).toBe('kam');
    },
  );

  it('GIVEN an oEmbed body without a <site>_id THEN the error names site_id', () => {
    const result = oembedSchema.safeParse({
      provider_name: 'Derpibooru',
      provider_url: 'https://derpibooru.org',
      title: 't',
      type: 'photo',
      version: '1.0',
      thumbnail_id: 5,
    });
    expect(result.success).toBe(false);
    if (!result.success) expect(issuePath(result.error)).toBe('site_id');
  });

  it('GIVEN both error body shapes THEN each parses, and an empty object does not', () => {
    expect(errorBodySchema.parse({ error: 'Not found' })).toEqual({ error: 'Not found' });
    expect(errorBodySchema.parse({ error: 'Imbalanced parentheses.' })).toEqual({
      error: 'Imbalanced parentheses.',
    });
    const rejected = errorBodySchema.parse({
      errors: { image_orig_sha512_hash: ['has already been taken'] },
    });
    expect(rejected).toEqual({ errors: { image_orig_sha512_hash: ['has already been taken'] } });
    expect(errorBodySchema.safeParse({}).success).toBe(false);
    const submit = submitImageResponseSchema.parse({
      errors: { tag_input: ['must contain at least 3 tags'] },
    });
    expect(submit).toEqual({ errors: { tag_input: ['must contain at least 3 tags'] } });
  });
});

describe('issuePath names the first bad field', () => {
  it('GIVEN an image search whose second image lacks representations.full THEN the path says so', () => {
    const body = structuredClone(fixture('derpibooru_2024_search_images_response.json')) as {
      images: { representations: Record<string, unknown> }[];
    };
    const second = body.images[1];
    if (!second) throw new Error('fixture has two images');
    delete second.representations['full'];
    const result = imagesResponseSchema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success) expect(issuePath(result.error)).toBe('images[1].representations.full');
  });

  it('GIVEN a tag list with a string count THEN the path points at it', () => {
    const body = structuredClone(fixture('derpibooru_2024_search_tags_response.json')) as {
      tags: Record<string, unknown>[];
    };
    const third = body.tags[2];
    if (!third) throw new Error('fixture has tags');
    third['images'] = 'many';
    const result = tagsResponseSchema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success) expect(issuePath(result.error)).toBe('tags[2].images');
  });

  it('GIVEN a submit answer whose image is broken THEN the path follows the image member of the union', () => {
    const result = submitImageResponseSchema.safeParse({ image: { ...VISIBLE, width: 'wide' } });
    expect(result.success).toBe(false);
    if (!result.success) expect(issuePath(result.error)).toBe('image.width');
  });

  it('GIVEN a body that is not an object THEN the path is the root', () => {
    const result = imageResponseSchema.safeParse('<html>');
    expect(result.success).toBe(false);
    if (!result.success) expect(issuePath(result.error)).toBe('(root)');
  });
});
