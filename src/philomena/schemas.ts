/**
 * zod schemas for every resource of the Philomena JSON API. They are the source of the API types.
 *
 * They accept what the real server sends, not only what its API description promises: the nulls and
 * oddities of docs/board-behaviour.md ("Shapes that differ from the description"), 2020-era records
 * without zones or `source_urls`, and both galleries shapes. Unknown fields are ignored (stripped), so a
 * new server field never breaks us.
 */
import { z } from 'zod';

/** RFC 3339 timestamp; 2020-era data has no zone, which the server means as UTC. Normalised to `...Z`. */
export const timestampSchema = z.string().transform((value, ctx) => {
  const zoned = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
  const ms = Date.parse(zoned);
  if (Number.isNaN(ms)) {
    ctx.addIssue({ code: 'custom', message: `not a timestamp: ${value.slice(0, 40)}` });
    return z.NEVER;
  }
  return new Date(ms).toISOString();
});

const nullableTimestamp = timestampSchema.nullable();
const id = z.number().int();
/** Strings the server may send as null or leave out; read as "" to keep rendering code simple. */
const text = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

export const representationsSchema = z
  .object({
    full: z.string(),
    large: z.string(),
    medium: z.string(),
    small: z.string(),
    tall: z.string(),
    thumb: z.string(),
    thumb_small: z.string(),
    thumb_tiny: z.string(),
    // exactOptional: `webm?: string`, not `string | undefined`, which the string catchall would reject.
    webm: z.string().exactOptional(),
    mp4: z.string().exactOptional(),
  })
  .catchall(z.string());
export type Representations = z.infer<typeof representationsSchema>;

export const intensitiesSchema = z
  .object({ ne: z.number(), nw: z.number(), se: z.number(), sw: z.number() })
  .nullable();

export const imageFormatSchema = z.string().transform((f) => f.toLowerCase());

const visibleImageObject = z.object({
  id,
  hidden_from_users: z.literal(false),
  animated: z.boolean().default(false),
  aspect_ratio: z.number(),
  comment_count: z.number().int(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  first_seen_at: timestampSchema,
  deletion_reason: z.string().nullable().default(null),
  description: text,
  downvotes: z.number().int(),
  upvotes: z.number().int(),
  score: z.number().int(),
  faves: z.number().int(),
  duplicate_of: z.number().int().nullable().default(null),
  duration: z.number().nullable().default(null),
  format: imageFormatSchema,
  width: z.number().int(),
  height: z.number().int(),
  intensities: intensitiesSchema.optional().default(null),
  mime_type: z.string(),
  name: text,
  orig_sha512_hash: z.string().nullable().default(null),
  sha512_hash: z.string().nullable().default(null),
  processed: z.boolean().default(true),
  representations: representationsSchema,
  size: z.number().int().nullable().default(null),
  source_url: z.string().nullable().optional(),
  source_urls: z.array(z.string()).optional(),
  // Left out (an older or forked board) reads as spoilered: the filter's hides and spoilers fail closed.
  spoilered: z.boolean().default(true),
  tag_count: z.number().int(),
  tag_ids: z.array(z.number().int()),
  tags: z.array(z.string()),
  thumbnails_generated: z.boolean(),
  uploader: z.string().nullable().default(null),
  uploader_id: z.number().int().nullable().default(null),
  view_url: z.string(),
  wilson_score: z.number(),
});

/** A visible image. `source_urls` is always present: the 2020 shape's lone `source_url` is folded in. */
export const visibleImageSchema = visibleImageObject.transform(({ source_url, source_urls, ...image }) => ({
  ...image,
  kind: 'image' as const,
  source_urls: (source_urls ?? (source_url ? [source_url] : [])).filter((url) => url.trim() !== ''),
}));

/** Deleted or merged: the server answers 200 with a stub. Told apart by `hidden_from_users: true`. */
export const hiddenImageSchema = z
  .object({
    id,
    hidden_from_users: z.literal(true),
    created_at: timestampSchema.optional(),
    updated_at: timestampSchema.optional(),
    first_seen_at: timestampSchema.optional(),
    deletion_reason: z.string().nullable().default(null),
    duplicate_of: z.number().int().nullable().default(null),
  })
  .transform((stub) => ({ ...stub, kind: 'hidden' as const }));

/** Discriminated, so a bad visible image reports its own bad field, not "matches no union member". */
export const imageSchema = z.discriminatedUnion('hidden_from_users', [visibleImageSchema, hiddenImageSchema]);
export type VisibleImage = z.infer<typeof visibleImageSchema>;
export type HiddenImage = z.infer<typeof hiddenImageSchema>;
export type Image = z.infer<typeof imageSchema>;

export const commentSchema = z.object({
  id,
  author: text,
  avatar: z.string().nullable().default(null),
  body: z.string().nullable().default(null),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  edit_reason: z.string().nullable().default(null),
  edited_at: nullableTimestamp.default(null),
  image_id: id,
  user_id: z.number().int().nullable().default(null),
});
export type Comment = z.infer<typeof commentSchema>;

export const forumSchema = z.object({
  name: z.string(),
  short_name: z.string(),
  description: text,
  topic_count: z.number().int(),
  post_count: z.number().int(),
});
export type Forum = z.infer<typeof forumSchema>;

export const topicSchema = z.object({
  slug: z.string(),
  title: z.string().nullable().default(null),
  post_count: z.number().int(),
  view_count: z.number().int(),
  sticky: z.boolean(),
  locked: z.boolean(),
  last_replied_to_at: nullableTimestamp.default(null),
  user_id: z.number().int().nullable().default(null),
  author: z.string().nullable().default(null),
});
export type Topic = z.infer<typeof topicSchema>;

export const postSchema = z.object({
  id,
  author: z.string().nullable().default(null),
  avatar: z.string().nullable().default(null),
  body: z.string().nullable().default(null),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  edit_reason: z.string().nullable().default(null),
  edited_at: nullableTimestamp.default(null),
  user_id: z.number().int().nullable().default(null),
});
export type Post = z.infer<typeof postSchema>;

export const tagCategorySchema = z.string().nullable();

export const tagSchema = z.object({
  id,
  name: z.string(),
  slug: z.string(),
  aliased_tag: z.string().nullable().default(null),
  aliases: z.array(z.string()).default([]),
  category: tagCategorySchema.default(null),
  description: text,
  dnp_entries: z.array(z.unknown()).default([]),
  images: z.number().int(),
  implied_by_tags: z.array(z.string()).default([]),
  implied_tags: z.array(z.string()).default([]),
  name_in_namespace: z.string().nullable().default(null),
  namespace: z.string().nullable().default(null),
  short_description: text,
  spoiler_image_uri: z.string().nullable().default(null),
});
export type Tag = z.infer<typeof tagSchema>;

export const userLinkSchema = z.object({
  user_id: z.number().int().nullable().default(null),
  created_at: timestampSchema.nullable().default(null),
  state: z.string().nullable().default(null),
  tag_id: z.number().int().nullable().default(null),
});
export type UserLink = z.infer<typeof userLinkSchema>;

export const awardSchema = z.object({
  id: z.number().int().nullable().default(null),
  image_url: z.string().nullable().default(null),
  title: z.string().nullable().default(null),
  label: z.string().nullable().default(null),
  awarded_on: nullableTimestamp.default(null),
});
export type Award = z.infer<typeof awardSchema>;

export const userSchema = z.object({
  id,
  name: z.string(),
  slug: z.string(),
  role: z.string().nullable().default(null),
  description: z.string().nullable().default(null),
  avatar_url: z.string().nullable().default(null),
  created_at: timestampSchema,
  comments_count: z.number().int().default(0),
  uploads_count: z.number().int().default(0),
  posts_count: z.number().int().default(0),
  topics_count: z.number().int().default(0),
  links: z.array(userLinkSchema).default([]),
  awards: z.array(awardSchema).default([]),
});
export type User = z.infer<typeof userSchema>;

export const filterSchema = z.object({
  id,
  name: z.string(),
  description: text,
  user_id: z.number().int().nullable().default(null),
  user_count: z.number().int().default(0),
  system: z.boolean(),
  public: z.boolean(),
  spoilered_tag_ids: z.array(z.number().int()).default([]),
  spoilered_complex: z.string().nullable().default(null),
  hidden_tag_ids: z.array(z.number().int()).default([]),
  hidden_complex: z.string().nullable().default(null),
});
export type Filter = z.infer<typeof filterSchema>;

/** Derpibooru sends `user`/`user_id`; upstream master sends `creator`/`creator_id`. Normalised to `creator*`. */
export const gallerySchema = z
  .object({
    id,
    title: z.string(),
    description: text,
    spoiler_warning: text,
    thumbnail_id: z.number().int().nullable().default(null),
    user: z.string().nullable().optional(),
    user_id: z.number().int().nullable().optional(),
    creator: z.string().nullable().optional(),
    creator_id: z.number().int().nullable().optional(),
  })
  .transform(({ user, user_id, creator, creator_id, ...gallery }) => ({
    ...gallery,
    creator: creator ?? user ?? null,
    creator_id: creator_id ?? user_id ?? null,
  }));
export type Gallery = z.infer<typeof gallerySchema>;

const messages = z.array(z.string()).optional();
export const imageErrorsSchema = z
  .object({
    image: messages,
    image_aspect_ratio: messages,
    image_format: messages,
    image_height: messages,
    image_width: messages,
    image_size: messages,
    image_is_animated: messages,
    image_mime_type: messages,
    image_orig_sha512_hash: messages,
    image_sha512_hash: messages,
    tag_input: messages,
    uploaded_image: messages,
  })
  .catchall(z.array(z.string()));
export type ImageErrors = z.infer<typeof imageErrorsSchema>;

/**
 * oEmbed. The `site_*` fields carry the site's own prefix (`derpibooru_id`, `furbooru_id`, ...); they are
 * gathered here under `site` whatever the prefix, and the known-prefix fields stay as they came.
 */
const STANDARD_PREFIXES = ['author_', 'thumbnail_', 'provider_', 'cache_'];
export const oembedSchema = z
  .looseObject({
    author_name: z.string().nullable().default(null),
    author_url: z.string().nullable().default(null),
    cache_age: z.number().int().nonnegative().default(7200),
    provider_name: z.string(),
    provider_url: z.string(),
    title: z.string(),
    type: z.string(),
    version: z.string(),
    thumbnail_url: z.string().optional(),
    thumbnail_width: z.number().optional(),
    thumbnail_height: z.number().optional(),
    url: z.string().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
  })
  .transform((body, ctx) => {
    const find = (suffix: string): unknown =>
      Object.entries(body).find(
        ([key]) => key.endsWith(`_${suffix}`) && !STANDARD_PREFIXES.some((prefix) => key.startsWith(prefix)),
      )?.[1];
    const site = z
      .object({
        id: z.number().int(),
        score: z.number().int().default(0),
        comments: z.number().int().default(0),
        tags: z.array(z.string()).default([]),
      })
      .safeParse({ id: find('id'), score: find('score'), comments: find('comments'), tags: find('tags') });
    if (!site.success) {
      ctx.addIssue({ code: 'custom', message: 'oEmbed body has no <site>_id field', path: ['site_id'] });
      return z.NEVER;
    }
    return {
      author_name: body.author_name,
      author_url: body.author_url,
      cache_age: body.cache_age,
      provider_name: body.provider_name,
      provider_url: body.provider_url,
      title: body.title,
      type: body.type,
      version: body.version,
      thumbnail_url: body.thumbnail_url ?? null,
      url: body.url ?? null,
      site: site.data,
    };
  });
export type OEmbed = z.infer<typeof oembedSchema>;

/** Error bodies: Derpibooru 1.2 sends an empty body; upstream master `{"error": "..."}`. */
export const errorBodySchema = z.union([
  z.object({ error: z.string() }),
  z.object({ errors: imageErrorsSchema }),
]);
export type ErrorBody = z.infer<typeof errorBodySchema>;

// ---- response envelopes ----
const total = z.number().int().nonnegative().optional();
export const imageResponseSchema = z.object({
  image: imageSchema,
  interactions: z.array(z.unknown()).optional(),
});
export const imagesResponseSchema = z.object({
  images: z.array(imageSchema),
  total,
  interactions: z.array(z.unknown()).optional(),
});
export const submitImageResponseSchema = z.union([
  z.object({ image: imageSchema }),
  z.object({ errors: imageErrorsSchema }),
]);
export const commentResponseSchema = z.object({ comment: commentSchema });
export const commentsResponseSchema = z.object({ comments: z.array(commentSchema), total });
export const tagResponseSchema = z.object({ tag: tagSchema });
export const tagsResponseSchema = z.object({ tags: z.array(tagSchema), total });
export const postResponseSchema = z.object({ post: postSchema });
export const postsResponseSchema = z.object({ posts: z.array(postSchema), total });
export const userResponseSchema = z.object({ user: userSchema });
export const filterResponseSchema = z.object({ filter: filterSchema });
export const filtersResponseSchema = z.object({ filters: z.array(filterSchema), total });
export const galleriesResponseSchema = z.object({ galleries: z.array(gallerySchema), total });
export const forumResponseSchema = z.object({ forum: forumSchema });
export const forumsResponseSchema = z.object({ forums: z.array(forumSchema), total });
export const topicResponseSchema = z.object({ topic: topicSchema });
export const topicsResponseSchema = z.object({ topics: z.array(topicSchema), total });

/**
 * The path of the first issue, as `images[3].representations.full`. When no member of a union matched, it
 * follows the member that got furthest (the longest path), so the message still names the bad field.
 */
export function issuePath(error: z.ZodError): string {
  type Issue = z.core.$ZodIssue;
  const pathOf = (issue: Issue): PropertyKey[] => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.path;
    let best: PropertyKey[] = [];
    for (const branch of issue.errors) {
      const first = branch[0];
      if (!first) continue;
      const inner = pathOf(first);
      if (inner.length > best.length) best = inner;
    }
    return [...issue.path, ...best];
  };
  const first = error.issues[0];
  if (!first) return '(root)';
  return (
    pathOf(first).reduce<string>(
      (acc, part) =>
        typeof part === 'number' ? `${acc}[${part}]` : acc === '' ? String(part) : `${acc}.${String(part)}`,
      '',
    ) || '(root)'
  );
}
