/**
 * Turns the data set's records into the JSON the real server sends (field names, nulls, URL shapes), and
 * describes each searchable kind for the query evaluator. URLs are rendered against the fake's own base.
 */
import type {
  CommentRecord,
  Dataset,
  FilterRecord,
  GalleryRecord,
  ImageRecord,
  PostRecord,
  TagRecord,
  TopicRecord,
  UserRecord,
} from './data.js';
import { myImages } from './accounts.js';
import { tagNamespace, tagSlugOf, RATING_TAGS } from './data.js';
import { MIME_TYPES } from './files.js';
import type { FieldValue, SearchSchema } from './query.js';

export type ErrorStyle = 'derpibooru' | 'upstream';

// ---------------------------------------------------------------------------------------------------
// Images

const THUMB_SIZES: readonly [string, number, number][] = [
  ['thumb_tiny', 50, 50],
  ['thumb_small', 150, 150],
  ['thumb', 250, 250],
  ['small', 320, 240],
  ['medium', 800, 600],
  ['large', 1280, 1024],
  ['tall', 1024, 4096],
];

export function datePath(image: ImageRecord): string {
  const d = new Date(
    /(?:Z|[+-]\d\d:?\d\d)$/i.test(image.createdAt) ? image.createdAt : `${image.createdAt}Z`,
  );
  return `${d.getUTCFullYear()}/${d.getUTCMonth() + 1}/${d.getUTCDate()}`;
}

/** The extension every representation uses: SVG uploads are rendered to PNG, WebM stays WebM. */
export function representationExtension(image: ImageRecord): string {
  return image.format === 'svg' ? 'png' : image.format;
}

export function wilsonScore(upvotes: number, downvotes: number): number {
  const n = upvotes + downvotes;
  if (n === 0) return 0;
  const z = 2.576; // 99.5% confidence
  const p = upvotes / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)) / (1 + z2 / n);
}

function viewSlug(image: ImageRecord): string {
  const ordered = [
    ...image.tags.filter((t) => RATING_TAGS.includes(t)),
    ...image.tags.filter((t) => tagNamespace(t) !== null && !RATING_TAGS.includes(t)),
    ...image.tags.filter((t) => tagNamespace(t) === null && !RATING_TAGS.includes(t)),
  ];
  const joined = ordered.map(tagSlugOf).join('_');
  // The server cuts the slug part of view URLs short, at a tag boundary.
  return joined.length <= 150 ? joined : joined.slice(0, 150).replace(/_[^_]*$/, '');
}

export interface RenderContext {
  readonly base: string;
  readonly style: ErrorStyle;
  readonly tagIdsByName: ReadonlyMap<string, number>;
}

function imagePaths(image: ImageRecord): { representations: Record<string, string>; viewUrl: string } {
  const dp = datePath(image);
  const ext = representationExtension(image);
  const dir = `/img/${dp}/${image.id}`;
  const representations: Record<string, string> = { full: `/img/view/${dp}/${image.id}.${ext}` };
  for (const [name, w, h] of THUMB_SIZES) {
    const needed = image.width > w || image.height > h;
    representations[name] = needed ? `${dir}/${name}.${ext}` : `${dir}/full.${ext}`;
  }
  if (image.format === 'gif' || image.format === 'webm') {
    representations['webm'] = `${dir}/full.webm`;
    representations['mp4'] = `${dir}/full.mp4`;
  }
  const slug = viewSlug(image);
  return {
    representations,
    viewUrl: `/img/view/${dp}/${image.id}${slug === '' ? '' : `__${slug}`}.${image.format}`,
  };
}

export function imageJson(
  image: ImageRecord,
  spoilered: boolean,
  ctx: RenderContext,
): Record<string, unknown> {
  if (image.deletionReason !== null || image.duplicateOf !== null) {
    return {
      id: image.id,
      created_at: image.createdAt,
      updated_at: image.updatedAt,
      first_seen_at: image.firstSeenAt,
      deletion_reason: image.deletionReason,
      duplicate_of: image.duplicateOf,
      hidden_from_users: true,
    };
  }
  const host = new URL(ctx.base).host;
  const { representations, viewUrl } = imagePaths(image);
  let index = 0;
  const url = (path: string): string => {
    if (image.urlStyle === 'absolute') return `${ctx.base}${path}`;
    // Old records: protocol-relative and site-relative URLs, mixed.
    index += 1;
    return index % 2 === 0 ? path : `//${host}${path}`;
  };
  const reps = Object.fromEntries(Object.entries(representations).map(([k, v]) => [k, url(v)]));
  const score = image.upvotes - image.downvotes;
  const json: Record<string, unknown> = {
    id: image.id,
    animated: image.animated,
    aspect_ratio: image.width / image.height,
    comment_count: image.commentCount,
    created_at: image.createdAt,
    deletion_reason: null,
    description: image.description,
    downvotes: image.downvotes,
    duplicate_of: null,
    duration: image.duration,
    faves: image.faves,
    first_seen_at: image.firstSeenAt,
    format: image.format,
    height: image.height,
    hidden_from_users: false,
    intensities: image.intensities,
    mime_type: MIME_TYPES[image.format],
    name: image.name,
    orig_sha512_hash: image.origSha512,
    orig_size: image.size,
    processed: image.processed,
    representations: reps,
    score,
    sha512_hash: image.sha512,
    size: image.size,
    source_url: image.sourceUrls[0] ?? '',
    source_urls: image.sourceUrls,
    spoilered,
    tag_count: image.tags.length,
    tag_ids: image.tags.map((t) => ctx.tagIdsByName.get(t) ?? 0),
    tags: image.tags,
    thumbnails_generated: image.thumbnailsGenerated,
    updated_at: image.updatedAt,
    uploader: image.uploader,
    uploader_id: image.uploaderId,
    upvotes: image.upvotes,
    view_url: url(viewUrl),
    width: image.width,
    wilson_score: image.wilsonScore ?? wilsonScore(image.upvotes, image.downvotes),
  };
  if (image.legacyShape) {
    // 2020-era shape: no zone on timestamps, no source_urls, no orig_size.
    delete json['source_urls'];
    delete json['orig_size'];
    for (const key of ['created_at', 'updated_at', 'first_seen_at']) {
      json[key] = String(json[key]).replace(/Z$/, '');
    }
  }
  return json;
}

// ---------------------------------------------------------------------------------------------------
// Tags

export interface TagIndex {
  readonly byName: ReadonlyMap<string, TagRecord>;
  readonly bySlug: ReadonlyMap<string, TagRecord>;
  /** Names of tags aliased to a tag, by the target's name. */
  readonly aliasesOf: ReadonlyMap<string, string[]>;
  readonly impliedBy: ReadonlyMap<string, string[]>;
  readonly counts: ReadonlyMap<string, number>;
  readonly idsByName: ReadonlyMap<string, number>;
}

export function indexTags(data: Dataset): TagIndex {
  const byName = new Map(data.tags.map((t) => [t.name, t]));
  const bySlug = new Map(data.tags.map((t) => [tagSlugOf(t.name), t]));
  const aliasesOf = new Map<string, string[]>();
  const impliedBy = new Map<string, string[]>();
  for (const tag of data.tags) {
    if (tag.aliasOf !== null) aliasesOf.set(tag.aliasOf, [...(aliasesOf.get(tag.aliasOf) ?? []), tag.name]);
    for (const implied of tag.implies) impliedBy.set(implied, [...(impliedBy.get(implied) ?? []), tag.name]);
  }
  const counts = new Map<string, number>();
  for (const image of data.images.values()) {
    if (image.deletionReason !== null || image.duplicateOf !== null || !image.approved) continue;
    for (const tag of image.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return {
    byName,
    bySlug,
    aliasesOf,
    impliedBy,
    counts,
    idsByName: new Map(data.tags.map((t) => [t.name, t.id])),
  };
}

export function tagJson(tag: TagRecord, index: TagIndex, base: string): Record<string, unknown> {
  const ns = tagNamespace(tag.name);
  const aliasTarget = tag.aliasOf === null ? null : tagSlugOf(tag.aliasOf);
  const unique = (list: string[]): string[] => [...new Set(list)];
  return {
    id: tag.id,
    name: tag.name,
    slug: tagSlugOf(tag.name),
    aliased_tag: aliasTarget,
    aliases: unique([...(index.aliasesOf.get(tag.name) ?? []).map(tagSlugOf), ...tag.extraAliases]),
    category: tag.category,
    description: tag.description,
    dnp_entries: tag.dnpEntries,
    images: aliasTarget === null ? (index.counts.get(tag.name) ?? 0) : 0,
    implied_by_tags: unique([...(index.impliedBy.get(tag.name) ?? []).map(tagSlugOf), ...tag.extraImpliedBy]),
    implied_tags: tag.implies.map(tagSlugOf),
    name_in_namespace: ns === null ? tag.name : tag.name.slice(ns.length + 1),
    namespace: ns,
    short_description: tag.shortDescription,
    spoiler_image_uri:
      tag.spoilerImagePath === null
        ? null
        : tag.spoilerImagePath.startsWith('/')
          ? `${base}${tag.spoilerImagePath}`
          : tag.spoilerImagePath,
  };
}

// ---------------------------------------------------------------------------------------------------
// Everything else

export function commentJson(c: CommentRecord): Record<string, unknown> {
  return {
    id: c.id,
    author: c.author,
    avatar: c.avatar,
    body: c.body,
    created_at: c.createdAt,
    edit_reason: c.editReason,
    edited_at: c.editedAt,
    image_id: c.imageId,
    updated_at: c.updatedAt,
    user_id: c.userId,
  };
}

export function postJson(p: PostRecord): Record<string, unknown> {
  return {
    id: p.id,
    author: p.author,
    avatar: p.avatar,
    body: p.body,
    created_at: p.createdAt,
    edit_reason: p.editReason,
    edited_at: p.editedAt,
    updated_at: p.updatedAt,
    user_id: p.userId,
  };
}

export function topicJson(t: TopicRecord, posts: readonly PostRecord[]): Record<string, unknown> {
  const last = posts.reduce<string | null>(
    (acc, p) => (acc === null || p.createdAt > acc ? p.createdAt : acc),
    null,
  );
  return {
    slug: t.slug,
    title: t.title,
    post_count: posts.length,
    view_count: t.viewCount,
    sticky: t.sticky,
    // Recorded topics keep their recorded last reply: only a few of their posts are in the data set.
    last_replied_to_at: t.lastRepliedToAt ?? last,
    locked: t.locked,
    user_id: t.userId,
    author: t.author,
  };
}

export function filterJson(f: FilterRecord): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    user_id: f.userId,
    user_count: f.userCount,
    system: f.system,
    public: f.public,
    spoilered_tag_ids: f.spoileredTagIds,
    spoilered_complex: f.spoileredComplex,
    hidden_tag_ids: f.hiddenTagIds,
    hidden_complex: f.hiddenComplex,
  };
}

/** Derpibooru sends `user`/`user_id`; upstream master `creator`/`creator_id`. */
export function galleryJson(g: GalleryRecord, style: ErrorStyle): Record<string, unknown> {
  const owner =
    style === 'derpibooru' ? { user: g.user, user_id: g.userId } : { creator: g.user, creator_id: g.userId };
  return {
    id: g.id,
    title: g.title,
    description: g.description,
    spoiler_warning: g.spoilerWarning,
    thumbnail_id: g.thumbnailId,
    ...owner,
  };
}

export function userJson(u: UserRecord, base: string): Record<string, unknown> {
  return {
    id: u.id,
    name: u.name,
    slug: u.slug,
    role: u.role,
    description: u.description,
    avatar_url: u.avatarUrl,
    created_at: u.createdAt,
    comments_count: u.commentsCount,
    uploads_count: u.uploadsCount,
    posts_count: u.postsCount,
    topics_count: u.topicsCount,
    links: u.links,
    awards: u.awards.map((a) => ({
      ...a,
      image_url: a.image_url.startsWith('/') ? `${base}${a.image_url}` : a.image_url,
    })),
  };
}

// ---------------------------------------------------------------------------------------------------
// Search schemas

export function imageSearchSchema(
  tags: TagIndex,
  galleries: readonly GalleryRecord[],
): SearchSchema<ImageRecord> {
  return {
    defaultField: 'tags',
    fields: {
      tags: 'literal',
      id: 'int',
      width: 'int',
      height: 'int',
      score: 'int',
      upvotes: 'int',
      downvotes: 'int',
      faves: 'int',
      comment_count: 'int',
      tag_count: 'int',
      pixels: 'int',
      size: 'int',
      aspect_ratio: 'float',
      wilson_score: 'float',
      duration: 'float',
      created_at: 'date',
      first_seen_at: 'date',
      updated_at: 'date',
      uploader: 'literal',
      faved_by: 'literal',
      upvoted_by: 'literal',
      source_url: 'literal',
      description: 'text',
      gallery_id: 'int',
      animated: 'bool',
      thumbnails_generated: 'bool',
      processed: 'bool',
      orig_sha512_hash: 'literal',
      sha512_hash: 'literal',
      original_format: 'literal',
      mime_type: 'literal',
    },
    values(image, field): readonly FieldValue[] {
      switch (field) {
        case 'tags':
          return image.tags.flatMap((t) => [t, ...(tags.aliasesOf.get(t) ?? [])]);
        case 'id':
          return [image.id];
        case 'width':
          return [image.width];
        case 'height':
          return [image.height];
        case 'score':
          return [image.upvotes - image.downvotes];
        case 'upvotes':
          return [image.upvotes];
        case 'downvotes':
          return [image.downvotes];
        case 'faves':
          return [image.faves];
        case 'comment_count':
          return [image.commentCount];
        case 'tag_count':
          return [image.tags.length];
        case 'pixels':
          return [image.width * image.height];
        case 'size':
          return [image.size];
        case 'aspect_ratio':
          return [image.width / image.height];
        case 'wilson_score':
          return [image.wilsonScore ?? wilsonScore(image.upvotes, image.downvotes)];
        case 'duration':
          return [image.duration];
        case 'created_at':
          return [image.createdAt];
        case 'first_seen_at':
          return [image.firstSeenAt];
        case 'updated_at':
          return [image.updatedAt];
        case 'uploader':
          return image.uploader === null ? [] : [image.uploader];
        case 'faved_by':
          return image.favedBy;
        case 'upvoted_by':
          return image.upvotedBy;
        case 'source_url':
          return image.sourceUrls;
        case 'description':
          return [image.description];
        case 'gallery_id':
          return galleries.filter((g) => g.imageIds.includes(image.id)).map((g) => g.id);
        case 'animated':
          return [image.animated];
        case 'thumbnails_generated':
          return [image.thumbnailsGenerated];
        case 'processed':
          return [image.processed];
        case 'orig_sha512_hash':
          return image.origSha512 === null ? [] : [image.origSha512];
        case 'sha512_hash':
          return [image.sha512];
        case 'original_format':
          return [image.format];
        case 'mime_type':
          return [MIME_TYPES[image.format]];
        default:
          return [];
      }
    },
    my: myImages,
  };
}

export function tagSearchSchema(index: TagIndex): SearchSchema<TagRecord> {
  return {
    defaultField: 'name',
    fields: {
      name: 'literal',
      slug: 'literal',
      category: 'literal',
      namespace: 'literal',
      name_in_namespace: 'literal',
      aliased_tag: 'literal',
      aliases: 'literal',
      implies: 'literal',
      implied_by: 'literal',
      description: 'text',
      short_description: 'text',
      analyzed_name: 'text',
      images: 'int',
      id: 'int',
    },
    values(tag, field) {
      const ns = tagNamespace(tag.name);
      switch (field) {
        case 'name':
          return [tag.name];
        case 'slug':
          return [tagSlugOf(tag.name)];
        case 'category':
          return tag.category === null ? [] : [tag.category];
        case 'namespace':
          return ns === null ? [] : [ns];
        case 'name_in_namespace':
          return [ns === null ? tag.name : tag.name.slice(ns.length + 1)];
        case 'aliased_tag':
          return tag.aliasOf === null ? [] : [tag.aliasOf];
        case 'aliases':
          return index.aliasesOf.get(tag.name) ?? [];
        case 'implies':
          return tag.implies;
        case 'implied_by':
          return index.impliedBy.get(tag.name) ?? [];
        case 'description':
          return [tag.description];
        case 'short_description':
          return tag.shortDescription === null ? [] : [tag.shortDescription];
        case 'analyzed_name':
          return [tag.name];
        case 'images':
          return [tag.aliasOf === null ? (index.counts.get(tag.name) ?? 0) : 0];
        case 'id':
          return [tag.id];
        default:
          return [];
      }
    },
  };
}

export const commentSearchSchema: SearchSchema<CommentRecord> = {
  defaultField: 'body',
  fields: { body: 'text', author: 'literal', user_id: 'int', image_id: 'int', id: 'int', created_at: 'date' },
  values(c, field) {
    switch (field) {
      case 'body':
        return c.body === null ? [] : [c.body];
      case 'author':
        return [c.author];
      case 'user_id':
        return c.userId === null ? [] : [c.userId];
      case 'image_id':
        return [c.imageId];
      case 'id':
        return [c.id];
      case 'created_at':
        return [c.createdAt];
      default:
        return [];
    }
  },
};

export const postSearchSchema: SearchSchema<PostRecord> = {
  defaultField: 'body',
  fields: {
    body: 'text',
    author: 'literal',
    user_id: 'int',
    id: 'int',
    created_at: 'date',
    forum: 'literal',
    topic: 'literal',
  },
  values(p, field) {
    const [forum, topic] = p.topicKey.split('/');
    switch (field) {
      case 'body':
        return p.body === null ? [] : [p.body];
      case 'author':
        return p.author === null ? [] : [p.author];
      case 'user_id':
        return p.userId === null ? [] : [p.userId];
      case 'id':
        return [p.id];
      case 'created_at':
        return [p.createdAt];
      case 'forum':
        return forum === undefined ? [] : [forum];
      case 'topic':
        return topic === undefined ? [] : [topic];
      default:
        return [];
    }
  },
};

/**
 * The gallery search as the board reads it (Philomena `galleries/query.ex`): `title` is a literal field
 * and the default one, so a bare word matches a whole title (any case) and `title:*word*` one that holds
 * it; `description` is an ngram field (read here word by word); no `spoiler_warning` field.
 */
export const gallerySearchSchema: SearchSchema<GalleryRecord> = {
  defaultField: 'title',
  fields: {
    title: 'literal',
    description: 'text',
    user: 'literal',
    creator: 'literal',
    id: 'int',
    user_id: 'int',
    creator_id: 'int',
    image_ids: 'int',
    image_count: 'int',
  },
  values(g, field) {
    switch (field) {
      case 'title':
        return [g.title];
      case 'description':
        return [g.description];
      case 'user':
      case 'creator':
        return [g.user];
      case 'id':
        return [g.id];
      case 'user_id':
      case 'creator_id':
        return [g.userId];
      case 'image_ids':
        return g.imageIds;
      case 'image_count':
        return [g.imageIds.length];
      default:
        return [];
    }
  },
};

export const filterSearchSchema: SearchSchema<FilterRecord> = {
  defaultField: 'name',
  fields: {
    name: 'text',
    description: 'text',
    id: 'int',
    user_id: 'int',
    user_count: 'int',
    public: 'bool',
    system: 'bool',
  },
  values(f, field) {
    switch (field) {
      case 'name':
        return [f.name];
      case 'description':
        return [f.description];
      case 'id':
        return [f.id];
      case 'user_id':
        return f.userId === null ? [] : [f.userId];
      case 'user_count':
        return [f.userCount];
      case 'public':
        return [f.public];
      case 'system':
        return [f.system];
      default:
        return [];
    }
  },
};
