/**
 * The local Philomena's data set: deterministic (same records on every start), built from the recorded
 * Derpibooru responses in ./fixtures plus generated images that cover the cases a client must handle
 * (every rating, credits, odd sources, stubs, animations, SVG, pending thumbnails, hostile text, legacy
 * URLs) and ~200 filler images for paging and sorting. Records hold no base URL: the server renders URLs
 * against its own address at request time. Ids worth knowing are exported from ./index.ts.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fileBytes, sha512 } from './files.js';
import type { FileExtension } from './files.js';
import { ruleTags } from './rule-tags.js';
import { createSeededRandom } from '../../support/random.js';

export type ImageFormat = 'png' | 'jpg' | 'jpeg' | 'gif' | 'svg' | 'webm';

export interface Intensities {
  ne: number;
  nw: number;
  se: number;
  sw: number;
}

export interface ImageRecord {
  id: number;
  createdAt: string;
  updatedAt: string;
  firstSeenAt: string;
  /** 2020-era record: timestamps without a zone and only `source_url` (no `source_urls`). */
  legacyShape: boolean;
  tags: string[];
  description: string;
  sourceUrls: string[];
  uploader: string | null;
  uploaderId: number | null;
  width: number;
  height: number;
  format: ImageFormat;
  name: string;
  upvotes: number;
  downvotes: number;
  faves: number;
  commentCount: number;
  animated: boolean;
  duration: number;
  thumbnailsGenerated: boolean;
  processed: boolean;
  intensities: Intensities | null;
  size: number;
  /** sha512 of the served original; null for old images (orig_sha512_hash null). */
  origSha512: string | null;
  sha512: string;
  /** Overrides the computed Wilson score (the server sends the integer 0 for unvoted images). */
  wilsonScore: number | null;
  deletionReason: string | null;
  duplicateOf: number | null;
  /** Representation URLs: absolute (today) or the old protocol-relative/relative mix. */
  urlStyle: 'absolute' | 'legacy';
  favedBy: string[];
  upvotedBy: string[];
  /** Seed of the deterministic file bytes. */
  fileSeed: string;
  approved: boolean;
}

export interface TagRecord {
  id: number;
  name: string;
  category: string | null;
  description: string;
  /** null in some recorded tags. */
  shortDescription: string | null;
  /** Name of the tag this one is an alias of. */
  aliasOf: string | null;
  /** Names of tags this one implies. */
  implies: string[];
  /** Slugs recorded in fixtures that point outside this data set, kept verbatim. */
  extraAliases: string[];
  extraImpliedBy: string[];
  /** Path on the fake's host (rendered absolute), or null. */
  spoilerImagePath: string | null;
  dnpEntries: unknown[];
}

export interface CommentRecord {
  id: number;
  imageId: number;
  author: string;
  userId: number | null;
  avatar: string;
  body: string | null;
  createdAt: string;
  updatedAt: string;
  editedAt: string | null;
  editReason: string | null;
}

export interface PostRecord {
  id: number;
  topicKey: string;
  author: string | null;
  userId: number | null;
  avatar: string;
  body: string | null;
  createdAt: string;
  updatedAt: string;
  editedAt: string | null;
  editReason: string | null;
}

export interface TopicRecord {
  forum: string;
  slug: string;
  title: string | null;
  /** Always a name: the anonymous name when posted anonymously (openapi.yaml `Topic`, topic_view.ex). */
  author: string;
  userId: number | null;
  sticky: boolean;
  locked: boolean;
  viewCount: number;
  /** Used when the topic has no posts in the data set (fixture topics). */
  lastRepliedToAt: string | null;
}

export interface ForumRecord {
  name: string;
  shortName: string;
  description: string;
}

export interface FilterRecord {
  id: number;
  name: string;
  description: string;
  userId: number | null;
  userCount: number;
  system: boolean;
  public: boolean;
  hiddenTagIds: number[];
  spoileredTagIds: number[];
  hiddenComplex: string | null;
  spoileredComplex: string | null;
}

export interface GalleryRecord {
  id: number;
  title: string;
  description: string;
  spoilerWarning: string;
  thumbnailId: number;
  user: string;
  userId: number;
  imageIds: number[];
}

export interface UserRecord {
  id: number;
  name: string;
  slug: string;
  role: string;
  description: string | null;
  avatarUrl: string | null;
  createdAt: string;
  commentsCount: number;
  uploadsCount: number;
  postsCount: number;
  topicsCount: number;
  links: { user_id: number; created_at: string; state: string; tag_id: number | null }[];
  awards: {
    id: number;
    title: string;
    label: string | null;
    awarded_on: string;
    image_url: string;
  }[];
  /** The filter applied when this user calls with their key. */
  currentFilterId: number;
  /** Images per page for this user's image searches. */
  imagesPerPage: number;
}

export interface Dataset {
  images: Map<number, ImageRecord>;
  tags: TagRecord[];
  comments: CommentRecord[];
  forums: ForumRecord[];
  topics: TopicRecord[];
  posts: PostRecord[];
  filters: FilterRecord[];
  galleries: GalleryRecord[];
  users: UserRecord[];
  featuredId: number | null;
  /** Extra bytes of uploaded images (by file seed), for files that are not generated from a seed. */
  uploads: Map<string, { bytes: Buffer; ext: FileExtension }>;
}

// ---------------------------------------------------------------------------------------------------
// Public constants (re-exported by index.ts)

export const FAKE_KEY = 'fake-philomena-key-BotOwner-9001';
export const OWNER = { id: 9001, name: 'BotOwner' } as const;
const OTHER_USER = { id: 4242, name: 'Other User' } as const;

export const IDS = {
  /** 2012 fixture image 0 ("artist needed", jpg, empty source_urls). */
  fixtureFirst: 0,
  /** 2012 fixture image 1 (artist:speccysy, orig_sha512_hash null). */
  fixtureSecond: 1,
  /** 2020-era fixture (timestamps without zone, only source_url). */
  fixture2020: 2028858,
  safe: 101,
  suggestive: 102,
  questionable: 103,
  explicit: 104,
  semiGrimdark: 105,
  grimdark: 106,
  grotesque: 107,
  questionableGrimdark: 108,
  suggestiveSemiGrimdark: 109,
  noRating: 110,
  multiCredit: 111,
  noArtist: 112,
  manySources: 113,
  noSources: 114,
  spoilerTagged: 115,
  hiddenTagged: 116,
  deleted: 117,
  merged: 118,
  mergeLoopA: 119,
  mergeLoopB: 120,
  animatedGif: 121,
  webm: 122,
  svg: 123,
  thumbnailsPending: 124,
  hostileText: 125,
  legacyUrls: 126,
  littlepip: 127,
  ownerUpload: 128,
  lowScore: 129,
  huge: 130,
  /** Waiting for moderator approval: 404 at its id, never in search. */
  unapproved: 131,
  /**
   * Explicit, with a young character's tag (`filly`): what the operator's floor hides everywhere, even in
   * an age-restricted channel with the Everything filter (src/render/floor.ts).
   */
  floorYoung: 132,
  /** The image /images/featured answers with by default. */
  featured: 101,
  fillerFirst: 1001,
  fillerLast: 1200,
} as const;

export const FILTER_IDS = {
  /** System "Everything": hides and spoilers nothing. */
  everything: 56027,
  /** System "Default", what anonymous callers get: hides explicit+grotesque, spoilers questionable. */
  default: 100073,
  /** System "Maximum Spoilers": spoilers every rating but safe. */
  maximumSpoilers: 37430,
  /** Private, owned by BotOwner (the key owner's current filter). */
  ownedPrivate: 200001,
  /** Private, owned by another user: invisible to everyone here. */
  otherPrivate: 200002,
  /** Public user filter with complex spoilers (`grimdark || semi-grimdark`). */
  public: 200003,
  /**
   * Public, owned by BotOwner, with the rules of `ownedPrivate`: what an owner who used their own filter
   * sets as BOORU_FILTER_ID now that the key goes with no read (the e2e harness does).
   */
  ownerPublic: 200004,
  /** Public fixture filter "Best Pony" (2020 recording). */
  publicFixture: 179331,
} as const;

export const TAG_SLUGS = {
  /** oc:littlepip, with the alias `littlepip` → `oc-colon-littlepip`. */
  littlepip: 'oc-colon-littlepip',
  littlepipAlias: 'littlepip',
  twilightSparkle: 'twilight+sparkle',
  safe: 'safe',
  /** Has a spoiler image. */
  spoilerS09e26: 'spoiler-colon-s09e26',
  artistMulti: 'artist-colon-alpha+artist',
  /** Markdown description with links, `||spoiler||` and `>>101`. */
  withMarkdown: 'twilight+sparkle',
  /** From the 2024 tags fixture. */
  wingHands: 'wing+hands',
} as const;

export const COMMENT_IDS = {
  fixture: 1000,
  onSafe: 5001,
  hostile: 5002,
  onDeleted: 5003,
  moderated: 5004,
  anonymous: 5005,
  edited: 5006,
  /** On a suggestive image: its words are not for a plain channel (comment links there hide them). */
  onSuggestive: 5007,
} as const;

export const FORUM = {
  /** Fixture forum holding the fixture topics. */
  art: 'art',
  artTopic: 'artists-group-chat',
  /** Topic in `art` with no posts here (last_replied_to_at from the fixture). */
  artEmptyTopic: 'featured-image',
  dis: 'dis',
  /** 30 posts: two pages of 25; hostile, moderated (null body) and anonymous posts. */
  botTopic: 'bot-testing',
  /** Locked, no posts, last_replied_to_at null. */
  lockedTopic: 'locked-and-empty',
} as const;

export const POST_IDS = {
  fixtureFirst: 2039231,
  botFirst: 3000001,
  hostile: 3000002,
  moderated: 3000003,
  anonymous: 3000004,
} as const;

export const GALLERY_IDS = {
  fixtureFirst: 25220,
  owner: 30001,
  /** Hostile title, spoiler warning and description (mentions, Markdown, huge), a safe cover. */
  hostile: 30002,
  /** A suggestive cover: its words are withheld outside age-restricted channels. */
  spicy: 30003,
} as const;
export const PROFILE_IDS = { owner: OWNER.id, other: OTHER_USER.id, fixture: 216494 } as const;

const HOSTILE_DESCRIPTION =
  '**Bold** _it_ @everyone @here <@123> <@&456> <#789> ||spoiler|| >>101 >>101t [link](/tags/safe) ' +
  '[evil](javascript:alert(1)) `code` ~~strike~~\r\n> quote\r\n# heading\r\n' +
  'x'.repeat(5000);

// ---------------------------------------------------------------------------------------------------
// Helpers

const FIXTURES = new URL('./fixtures/', import.meta.url);

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
}

const NAMESPACES = [
  'artist',
  'colorist',
  'editor',
  'generator',
  'photographer',
  'prompter',
  'commissioner',
  'oc',
  'spoiler',
  'comic',
  'series',
  'fanfic',
  'art pack',
];

export function tagNamespace(name: string): string | null {
  const colon = name.indexOf(':');
  if (colon <= 0) return null;
  const ns = name.slice(0, colon);
  return NAMESPACES.includes(ns) ? ns : null;
}

export function tagSlugOf(name: string): string {
  return name
    .replaceAll('-', '-dash-')
    .replaceAll('/', '-fwslash-')
    .replaceAll('\\', '-bwslash-')
    .replaceAll(':', '-colon-')
    .replaceAll('.', '-dot-')
    .replaceAll('+', '-plus-')
    .replaceAll(' ', '+');
}

export const RATING_TAGS = [
  'safe',
  'suggestive',
  'questionable',
  'explicit',
  'semi-grimdark',
  'grimdark',
  'grotesque',
];

const CHARACTERS = [
  'twilight sparkle',
  'rainbow dash',
  'fluttershy',
  'pinkie pie',
  'rarity',
  'applejack',
  'twilight velvet',
  'gallus',
  'sandbar',
  'derpy hooves',
];
const SPECIES = ['pony', 'unicorn', 'pegasus', 'earth pony', 'griffon', 'alicorn'];

function categoryFor(name: string): string | null {
  if (RATING_TAGS.includes(name)) return 'rating';
  const ns = tagNamespace(name);
  if (ns === 'oc') return 'oc';
  if (ns === 'spoiler') return 'spoiler';
  if (ns !== null && ns !== 'comic' && ns !== 'series' && ns !== 'fanfic' && ns !== 'art pack')
    return 'origin';
  if (CHARACTERS.includes(name)) return 'character';
  if (SPECIES.includes(name)) return 'species';
  if (['artist needed', 'anonymous artist', 'screencap', 'edit', 'ai generated'].includes(name))
    return 'origin';
  if (name === 'g4' || name === 'g5') return 'content-official';
  if (name === 'fallout equestria') return 'content-fanmade';
  if (name === 'female' || name === 'male') return 'body-type';
  return null;
}

/** An ISO timestamp without milliseconds, as the board writes them. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---------------------------------------------------------------------------------------------------
// Fixture shapes (parsed: they are files, but still outside data to this module)

const fixtureImage = z.looseObject({
  id: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  first_seen_at: z.string(),
  tags: z.array(z.string()),
  description: z.string(),
  source_urls: z.array(z.string()).optional(),
  source_url: z.string().nullable().optional(),
  uploader: z.string().nullable(),
  uploader_id: z.number().nullable(),
  width: z.number(),
  height: z.number(),
  format: z.enum(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webm']),
  name: z.string(),
  upvotes: z.number(),
  downvotes: z.number(),
  faves: z.number(),
  comment_count: z.number(),
  animated: z.boolean().optional(),
  duration: z.number().optional(),
  intensities: z.object({ ne: z.number(), nw: z.number(), se: z.number(), sw: z.number() }).nullable(),
  size: z.number().optional(),
  orig_sha512_hash: z.string().nullable(),
  wilson_score: z.number(),
});

const fixtureTag = z.object({
  id: z.number(),
  name: z.string(),
  category: z.string().nullable(),
  description: z.string(),
  short_description: z.string().nullable(),
  aliased_tag: z.string().nullable(),
  aliases: z.array(z.string()),
  implied_tags: z.array(z.string()),
  implied_by_tags: z.array(z.string()),
  spoiler_image_uri: z.string().nullable(),
  dnp_entries: z.array(z.unknown()),
});

const fixtureFilter = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  user_id: z.number().nullable(),
  user_count: z.number(),
  system: z.boolean(),
  public: z.boolean(),
  hidden_tag_ids: z.array(z.number()),
  spoilered_tag_ids: z.array(z.number()),
  hidden_complex: z.string().nullable(),
  spoilered_complex: z.string().nullable(),
});

const fixturePost = z.object({
  id: z.number(),
  author: z.string(),
  user_id: z.number().nullable(),
  avatar: z.string(),
  body: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  edited_at: z.string().nullable(),
  edit_reason: z.string().nullable(),
});

const fixtureComment = fixturePost.extend({ image_id: z.number() });

const fixtureTopic = z.object({
  slug: z.string(),
  title: z.string(),
  author: z.string(),
  user_id: z.number().nullable(),
  sticky: z.boolean(),
  locked: z.boolean(),
  view_count: z.number(),
  last_replied_to_at: z.string().nullable(),
});

const fixtureForum = z.object({ name: z.string(), short_name: z.string(), description: z.string() });

const fixtureGallery = z.object({
  id: z.number(),
  title: z.string(),
  description: z.string(),
  spoiler_warning: z.string(),
  thumbnail_id: z.number(),
  user: z.string(),
  user_id: z.number(),
});

const fixtureUser = z.object({
  id: z.number(),
  name: z.string(),
  slug: z.string(),
  role: z.string(),
  description: z.string().nullable(),
  avatar_url: z.string().nullable(),
  created_at: z.string(),
  comments_count: z.number(),
  uploads_count: z.number(),
  posts_count: z.number(),
  topics_count: z.number(),
  links: z.array(
    z.object({
      user_id: z.number(),
      created_at: z.string(),
      state: z.string(),
      tag_id: z.number().nullable(),
    }),
  ),
  awards: z.array(
    z.object({
      id: z.number(),
      title: z.string(),
      label: z.string().nullable(),
      awarded_on: z.string(),
      image_url: z.string(),
    }),
  ),
});

// ---------------------------------------------------------------------------------------------------
// Builders

interface ImageSpec {
  id: number;
  tags: string[];
  created: string;
  description?: string;
  sourceUrls?: string[];
  uploader?: string | null;
  uploaderId?: number | null;
  width?: number;
  height?: number;
  format?: ImageFormat;
  upvotes?: number;
  downvotes?: number;
  faves?: number;
  animated?: boolean;
  duration?: number;
  thumbnailsGenerated?: boolean;
  processed?: boolean;
  deletionReason?: string | null;
  duplicateOf?: number | null;
  urlStyle?: 'absolute' | 'legacy';
  origHashNull?: boolean;
  wilsonScore?: number | null;
  intensities?: Intensities | null;
  favedBy?: string[];
  upvotedBy?: string[];
  approved?: boolean;
}

function originalExtension(format: ImageFormat): FileExtension {
  return format;
}

function makeImage(spec: ImageSpec, implications: ReadonlyMap<string, readonly string[]>): ImageRecord {
  const format = spec.format ?? 'png';
  const seed = `image-${spec.id}`;
  const bytes = fileBytes(seed, originalExtension(format));
  const hash = sha512(bytes);
  const created = Date.parse(spec.created);
  const tags = withImplied(spec.tags, implications);
  const r = createSeededRandom(spec.id + 7);
  return {
    id: spec.id,
    createdAt: iso(created),
    updatedAt: iso(created + 86_400_000 * 3),
    firstSeenAt: iso(created),
    legacyShape: false,
    tags,
    description: spec.description ?? '',
    sourceUrls: spec.sourceUrls ?? [`https://www.deviantart.com/fake/art/image-${spec.id}`],
    uploader: spec.uploader === undefined ? 'Uploader Pony' : spec.uploader,
    uploaderId: spec.uploaderId === undefined ? (spec.uploader === null ? null : 7000) : spec.uploaderId,
    width: spec.width ?? 1920,
    height: spec.height ?? 1080,
    format,
    name: `image-${spec.id}.${format}`,
    upvotes: spec.upvotes ?? 100 + (spec.id % 50),
    downvotes: spec.downvotes ?? 3,
    faves: spec.faves ?? 40 + (spec.id % 20),
    commentCount: 0,
    animated: spec.animated ?? false,
    duration: spec.duration ?? 0.04,
    thumbnailsGenerated: spec.thumbnailsGenerated ?? true,
    processed: spec.processed ?? true,
    intensities:
      spec.intensities === undefined
        ? { ne: r() * 255, nw: r() * 255, se: r() * 255, sw: r() * 255 }
        : spec.intensities,
    size: bytes.length,
    origSha512: spec.origHashNull ? null : hash,
    sha512: hash,
    wilsonScore: spec.wilsonScore ?? null,
    deletionReason: spec.deletionReason ?? null,
    duplicateOf: spec.duplicateOf ?? null,
    urlStyle: spec.urlStyle ?? 'absolute',
    favedBy: spec.favedBy ?? [],
    upvotedBy: spec.upvotedBy ?? [],
    fileSeed: seed,
    approved: spec.approved ?? true,
  };
}

/** The tags plus everything they imply (transitively), each once, in order of first mention. */
export function withImplied(
  tags: readonly string[],
  implications: ReadonlyMap<string, readonly string[]>,
): string[] {
  const out: string[] = [];
  const visit = (name: string): void => {
    if (out.includes(name)) return;
    out.push(name);
    for (const implied of implications.get(name) ?? []) visit(implied);
  };
  for (const tag of tags) visit(tag);
  return out;
}

const TWILIGHT_DESCRIPTION =
  '**Princess of Friendship.** Not to be confused with [Twilight Velvet](/tags/twilight+velvet).\r\n' +
  '||Becomes an alicorn.|| Example: >>101t\r\nSee also [the wiki](https://mlp.fandom.com/wiki/Twilight_Sparkle).';

function namedImages(): ImageSpec[] {
  const owner = OWNER.name;
  return [
    {
      id: IDS.safe,
      tags: [
        'safe',
        'artist:fake artist',
        'twilight sparkle',
        'unicorn',
        'pony',
        'female',
        'mare',
        'solo',
        'g4',
      ],
      created: '2023-03-01T12:00:00Z',
      description: 'A calm picture of Twilight reading.\r\n\r\nMore at >>102',
      upvotes: 900,
      downvotes: 10,
      faves: 500,
      favedBy: [owner],
    },
    {
      id: IDS.suggestive,
      tags: ['suggestive', 'artist:fake artist', 'rarity', 'unicorn', 'pony', 'female'],
      created: '2023-03-02T12:00:00Z',
    },
    {
      id: IDS.questionable,
      tags: ['questionable', 'artist:fake artist', 'rainbow dash', 'pegasus', 'pony', 'female'],
      created: '2023-03-03T12:00:00Z',
    },
    {
      id: IDS.explicit,
      tags: ['explicit', 'artist:fake artist', 'applejack', 'earth pony', 'pony', 'female'],
      created: '2023-03-04T12:00:00Z',
    },
    {
      id: IDS.semiGrimdark,
      tags: ['semi-grimdark', 'artist:grim artist', 'fluttershy', 'pegasus', 'pony'],
      created: '2023-03-05T12:00:00Z',
    },
    {
      id: IDS.grimdark,
      tags: ['grimdark', 'artist:grim artist', 'pinkie pie', 'earth pony', 'pony'],
      created: '2023-03-06T12:00:00Z',
    },
    {
      id: IDS.grotesque,
      tags: ['grotesque', 'artist:grim artist', 'pony'],
      created: '2023-03-07T12:00:00Z',
    },
    {
      id: IDS.questionableGrimdark,
      tags: ['questionable', 'grimdark', 'artist:grim artist', 'pony'],
      created: '2023-03-08T12:00:00Z',
    },
    {
      id: IDS.suggestiveSemiGrimdark,
      tags: ['suggestive', 'semi-grimdark', 'artist:grim artist', 'pony'],
      created: '2023-03-09T12:00:00Z',
    },
    {
      id: IDS.noRating,
      tags: ['artist:fake artist', 'pony', 'solo'],
      created: '2023-03-10T12:00:00Z',
    },
    {
      id: IDS.multiCredit,
      tags: [
        'safe',
        'artist:alpha artist',
        'artist:beta-artist',
        'colorist:color pony',
        'editor:edit pony',
        'prompter:prompt pony',
        'generator:stable diffusion',
        'commissioner:rich pony',
        'ai generated',
        'twilight sparkle',
        'pony',
      ],
      created: '2023-03-11T12:00:00Z',
    },
    {
      id: IDS.noArtist,
      tags: ['safe', 'artist needed', 'pony', 'solo'],
      created: '2023-03-12T12:00:00Z',
    },
    {
      id: IDS.manySources,
      tags: ['safe', 'artist:fake artist', 'pony'],
      created: '2023-03-13T12:00:00Z',
      sourceUrls: [
        'https://twitter.com/fakeartist/status/1234567890',
        'http://insecure.example.net/gallery/113',
        'https://www.deviantart.com/fakeartist/art/Pony-113',
        'not a url at all',
        'javascript:alert(1)',
      ],
    },
    {
      id: IDS.noSources,
      tags: ['safe', 'artist:fake artist', 'pony'],
      created: '2023-03-14T12:00:00Z',
      sourceUrls: [],
    },
    {
      id: IDS.spoilerTagged,
      tags: ['safe', 'artist:fake artist', 'spoiler:s09e26', 'twilight sparkle', 'alicorn', 'pony'],
      created: '2023-03-15T12:00:00Z',
    },
    {
      id: IDS.hiddenTagged,
      tags: ['safe', 'artist:fake artist', 'hidden test tag', 'pony'],
      created: '2023-03-16T12:00:00Z',
    },
    {
      id: IDS.deleted,
      tags: ['safe', 'artist:fake artist', 'pony'],
      created: '2023-03-17T12:00:00Z',
      deletionReason: 'Rule #1 violation: duplicate upload of an image that breaks rule #1',
    },
    {
      id: IDS.merged,
      tags: ['safe', 'artist:fake artist', 'twilight sparkle', 'pony'],
      created: '2023-03-18T12:00:00Z',
      duplicateOf: IDS.safe,
    },
    {
      id: IDS.mergeLoopA,
      tags: ['safe', 'pony'],
      created: '2023-03-19T12:00:00Z',
      duplicateOf: IDS.mergeLoopB,
    },
    {
      id: IDS.mergeLoopB,
      tags: ['safe', 'pony'],
      created: '2023-03-20T12:00:00Z',
      duplicateOf: IDS.mergeLoopA,
    },
    {
      id: IDS.animatedGif,
      tags: ['safe', 'artist:fake artist', 'animated', 'gif', 'pinkie pie', 'pony'],
      created: '2023-03-21T12:00:00Z',
      format: 'gif',
      animated: true,
      duration: 2.5,
      width: 500,
      height: 500,
    },
    {
      id: IDS.webm,
      tags: ['safe', 'artist:fake artist', 'animated', 'webm', 'sound', 'rainbow dash', 'pony'],
      created: '2023-03-22T12:00:00Z',
      format: 'webm',
      animated: true,
      duration: 12.3,
      width: 1280,
      height: 720,
    },
    {
      id: IDS.svg,
      tags: ['safe', 'artist:vector pony', 'vector', 'svg', 'fluttershy', 'pony'],
      created: '2023-03-23T12:00:00Z',
      format: 'svg',
      width: 4000,
      height: 4000,
    },
    {
      id: IDS.thumbnailsPending,
      tags: ['safe', 'artist:fake artist', 'pony'],
      created: '2024-12-01T12:00:00Z',
      thumbnailsGenerated: false,
      processed: false,
      intensities: null,
    },
    {
      id: IDS.hostileText,
      tags: ['safe', 'artist:@everyone', 'artist:<@123>', 'pony', '||spoiler||'],
      created: '2023-03-25T12:00:00Z',
      description: HOSTILE_DESCRIPTION,
      sourceUrls: ['https://example.com/@everyone?<@&456>'],
      uploader: '@here',
    },
    {
      id: IDS.legacyUrls,
      tags: ['safe', 'artist:old timer', 'pony', 'derpibooru legacy'],
      created: '2013-05-05T05:05:05Z',
      urlStyle: 'legacy',
      uploader: null,
      uploaderId: null,
      origHashNull: true,
      upvotes: 0,
      downvotes: 0,
      faves: 0,
      wilsonScore: 0,
      intensities: null,
      sourceUrls: ['http://www.fimfiction.net/story/1'],
    },
    {
      id: IDS.littlepip,
      tags: ['safe', 'artist:fake artist', 'oc:littlepip', 'unicorn', 'pony'],
      created: '2023-03-27T12:00:00Z',
      upvotes: 400,
    },
    {
      id: IDS.ownerUpload,
      tags: ['safe', 'artist:fake artist', 'applejack', 'pony'],
      created: '2023-03-28T12:00:00Z',
      uploader: OWNER.name,
      uploaderId: OWNER.id,
      favedBy: [owner],
      upvotedBy: [owner],
    },
    {
      id: IDS.lowScore,
      tags: ['safe', 'artist:fake artist', 'pony', 'low score'],
      created: '2023-03-29T12:00:00Z',
      upvotes: 5,
      downvotes: 40,
    },
    {
      id: IDS.huge,
      tags: ['safe', 'artist:fake artist', 'pony', 'absurd resolution'],
      created: '2023-03-30T12:00:00Z',
      width: 6000,
      height: 9000,
    },
    {
      id: IDS.unapproved,
      tags: ['safe', 'artist:fake artist', 'pony', 'awaiting approval'],
      created: '2023-03-31T12:00:00Z',
      approved: false,
    },
    {
      id: IDS.floorYoung,
      tags: ['explicit', 'artist:floor artist', 'filly', 'floor test'],
      created: '2023-04-01T12:00:00Z',
      description: 'A description the floor keeps out of every card.',
      sourceUrls: ['https://example.com/floor-source'],
    },
  ];
}

const FILLER_ARTISTS = [
  'artist:filler one',
  'artist:filler-two',
  'artist:filler three',
  'artist:kam',
  'artist:speccysy',
  'artist:fleet-wing',
  'artist needed',
  'anonymous artist',
];
const FILLER_EXTRA = [
  'wing hands',
  'wing fluff',
  'one wing out',
  'wing hold',
  'cute',
  'smiling',
  'solo',
  'outdoors',
  'sky',
  'twilight',
  'twist',
  'book',
  'flower',
];
const SIZES: [number, number][] = [
  [1920, 1080],
  [800, 600],
  [300, 200],
  [2500, 3500],
  [1000, 1000],
  [4096, 2160],
];

function fillerImages(): ImageSpec[] {
  const r = createSeededRandom(20240601);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
  const specs: ImageSpec[] = [];
  const start = Date.UTC(2015, 0, 1);
  for (let id: number = IDS.fillerFirst; id <= IDS.fillerLast; id += 1) {
    const index = id - IDS.fillerFirst;
    const roll = r();
    const rating =
      roll < 0.6
        ? ['safe']
        : roll < 0.75
          ? ['suggestive']
          : roll < 0.85
            ? ['questionable']
            : roll < 0.95
              ? ['explicit']
              : ['grimdark'];
    const character = pick(CHARACTERS.slice(0, 6));
    const tags = [...rating, pick(FILLER_ARTISTS), character, 'pony', 'g4'];
    if (r() < 0.3) tags.push(pick(CHARACTERS.slice(0, 7)));
    const extras = Math.floor(r() * 4);
    for (let k = 0; k < extras; k += 1) tags.push(pick(FILLER_EXTRA));
    const formatRoll = r();
    const format: ImageFormat = formatRoll < 0.85 ? 'png' : formatRoll < 0.95 ? 'jpg' : 'gif';
    const [width, height] = pick(SIZES);
    const upvotes = Math.floor(r() * 2000);
    const downvotes = Math.floor(r() * 100);
    const uploaderRoll = r();
    specs.push({
      id,
      tags: [...new Set(tags)],
      created: iso(start + index * 15 * 86_400_000 + Math.floor(r() * 86_400_000)),
      description: index % 7 === 0 ? `Filler image number ${index}. Drawn for the *test* suite.` : '',
      format,
      animated: format === 'gif',
      duration: format === 'gif' ? 1 + Math.floor(r() * 10) / 2 : 0.04,
      width,
      height,
      upvotes,
      downvotes,
      faves: Math.floor(upvotes / 3),
      uploader: uploaderRoll < 0.2 ? null : uploaderRoll < 0.3 ? OWNER.name : 'Filler Uploader',
      uploaderId: uploaderRoll < 0.2 ? null : uploaderRoll < 0.3 ? OWNER.id : 7001,
      sourceUrls: index % 5 === 0 ? [] : [`https://www.deviantart.com/filler/art/${id}`],
      favedBy: index % 11 === 0 ? [OWNER.name] : [],
    });
  }
  return specs;
}

function fixtureImages(): ImageRecord[] {
  const search = z
    .object({ images: z.array(fixtureImage) })
    .parse(fixture('derpibooru_2024_search_images_response.json')).images;
  const old = z
    .object({ image: fixtureImage })
    .parse(fixture('derpibooru_2020_image_2028858_show_response.json'));
  return [...search, old.image].map((raw) => {
    const legacy = raw.source_urls === undefined;
    const seed = `image-${raw.id}`;
    const bytes = fileBytes(seed, raw.format);
    const hash = sha512(bytes);
    return {
      id: raw.id,
      createdAt: raw.created_at,
      updatedAt: raw.updated_at,
      firstSeenAt: raw.first_seen_at,
      legacyShape: legacy,
      tags: raw.tags,
      description: raw.description,
      sourceUrls: raw.source_urls ?? (raw.source_url ? [raw.source_url] : []),
      uploader: raw.uploader,
      uploaderId: raw.uploader_id,
      width: raw.width,
      height: raw.height,
      format: raw.format,
      name: raw.name,
      upvotes: raw.upvotes,
      downvotes: raw.downvotes,
      faves: raw.faves,
      commentCount: raw.comment_count,
      animated: raw.animated ?? false,
      duration: raw.duration ?? 0.04,
      thumbnailsGenerated: true,
      processed: true,
      intensities: raw.intensities,
      size: raw.size ?? bytes.length,
      // The recorded hashes describe files we cannot serve; ours describe the bytes we do serve.
      origSha512: raw.orig_sha512_hash === null ? null : hash,
      sha512: hash,
      wilsonScore: raw.wilson_score,
      deletionReason: null,
      duplicateOf: null,
      urlStyle: 'absolute',
      favedBy: [],
      upvotedBy: [],
      fileSeed: seed,
      approved: true,
    };
  });
}

function buildTags(images: Iterable<ImageRecord>, specs: TagRecord[]): TagRecord[] {
  const byName = new Map(specs.map((t) => [t.name, t]));
  const names = new Set<string>();
  for (const image of images) for (const tag of image.tags) names.add(tag);
  let nextId = 600_000;
  for (const name of [...names].sort()) {
    if (byName.has(name)) continue;
    const tag = baseTag(nextId, name);
    nextId += 1;
    byName.set(name, tag);
  }
  return [...byName.values()];
}

/** A tag with no description, alias or implication; `extra` fills in the rest. */
export function baseTag(id: number, name: string, extra: Partial<TagRecord> = {}): TagRecord {
  return {
    id,
    name,
    category: categoryFor(name),
    description: '',
    shortDescription: '',
    aliasOf: null,
    implies: [],
    extraAliases: [],
    extraImpliedBy: [],
    spoilerImagePath: null,
    dnpEntries: [],
    ...extra,
  };
}

function explicitTags(): TagRecord[] {
  const tags: TagRecord[] = [
    baseTag(40482, 'safe', {
      description: 'Nothing sexual or graphic. The default rating for images without sexual or dark content.',
      shortDescription: 'No sexual or graphic content.',
    }),
    baseTag(43502, 'suggestive', { shortDescription: 'Sexual innuendo, no explicit nudity.' }),
    baseTag(39068, 'questionable', { shortDescription: 'Nudity and sexual themes.' }),
    baseTag(26707, 'explicit', { shortDescription: 'Explicit sexual content.' }),
    baseTag(43503, 'semi-grimdark', {
      shortDescription: 'Somewhat dark content.',
      spoilerImagePath: '/media/spoilers/semi-grimdark.png',
    }),
    baseTag(26911, 'grimdark', { shortDescription: 'Dark, disturbing content.' }),
    baseTag(115234, 'grotesque', { shortDescription: 'Gore and body horror.' }),
    baseTag(27141, 'twilight sparkle', {
      description: TWILIGHT_DESCRIPTION,
      shortDescription: 'Princess of Friendship',
    }),
    baseTag(27142, 'twilight velvet', { shortDescription: "Twilight Sparkle's mother." }),
    baseTag(90001, 'spoiler:s09e26', {
      description: 'Spoilers for the series finale, "The Last Problem".',
      spoilerImagePath: '/media/spoilers/s09e26.png',
    }),
    baseTag(90002, 'hidden test tag', { description: 'Hidden by the bot owner\u2019s filter.' }),
    baseTag(90003, 'artist:alpha artist', {
      category: 'origin',
      description: 'Alpha Artist. Commissions open: [my site](https://alpha.example)',
      // The shape of dnp_view.ex (openapi.yaml `DnpEntry`): id and created_at included.
      dnpEntries: [
        {
          id: 1201,
          dnp_type: 'With Permission Only',
          conditions: '',
          reason: 'Ask first',
          created_at: '2023-05-01T12:00:00Z',
        },
      ],
    }),
    baseTag(90004, 'twi', { aliasOf: 'twilight sparkle' }),
    baseTag(90005, 'artist:@everyone', { description: '@everyone <@123> ||x||' }),
  ];
  // The 2020 fixture pair: oc:littlepip and its alias littlepip.
  const pair = z
    .record(z.string(), z.object({ tag: fixtureTag }))
    .parse(fixture('derpibooru_2020_tags_oc-colon-littlepip_and_aliased_littlepip.json'));
  const littlepip = pair['oc-colon-littlepip']?.tag;
  const alias = pair['littlepip']?.tag;
  if (littlepip && alias) {
    tags.push(
      baseTag(littlepip.id, littlepip.name, {
        category: littlepip.category,
        description: littlepip.description,
        shortDescription: littlepip.short_description,
        implies: ['fallout equestria', 'oc'],
        extraImpliedBy: littlepip.implied_by_tags,
      }),
      baseTag(alias.id, alias.name, { category: null, aliasOf: littlepip.name }),
      baseTag(600_001 + 90_000, 'fallout equestria'),
      baseTag(600_002 + 90_000, 'oc'),
    );
  }
  // The 2024 tags search: their image counts come from our images (fillers use some of them).
  const search = z
    .object({ tags: z.array(fixtureTag) })
    .parse(fixture('derpibooru_2024_search_tags_response.json')).tags;
  for (const t of search) {
    tags.push(
      baseTag(t.id, t.name, {
        category: t.category,
        description: t.description,
        shortDescription: t.short_description,
        implies: t.implied_tags.includes('wings') ? ['wings'] : [],
        extraAliases: t.aliases,
        extraImpliedBy: t.implied_by_tags,
        spoilerImagePath: t.spoiler_image_uri,
        dnpEntries: t.dnp_entries,
      }),
    );
  }
  tags.push(baseTag(38185, 'wings'));
  tags.push(...ruleTags(baseTag));
  return tags;
}

function buildFilters(tagId: (name: string) => number): FilterRecord[] {
  const everything = fixtureFilter.parse(
    z.array(z.unknown()).parse(fixture('derpibooru_2024_filter_56027_everything_as_array.json'))[0],
  );
  const bestPony = z
    .object({ filter: fixtureFilter })
    .parse(fixture('derpibooru_2020_filter_179331_user_public_show_response.json')).filter;
  const toRecord = (f: z.infer<typeof fixtureFilter>): FilterRecord => ({
    id: f.id,
    name: f.name,
    description: f.description,
    userId: f.user_id,
    userCount: f.user_count,
    system: f.system,
    public: f.public,
    hiddenTagIds: f.hidden_tag_ids,
    spoileredTagIds: f.spoilered_tag_ids,
    hiddenComplex: f.hidden_complex,
    spoileredComplex: f.spoilered_complex,
  });
  return [
    toRecord(everything),
    {
      id: FILTER_IDS.default,
      name: 'Default',
      description: 'The site\u2019s default filter: hides explicit and grotesque, spoilers questionable.',
      userId: null,
      userCount: 500_000,
      system: true,
      public: false,
      hiddenTagIds: [tagId('explicit'), tagId('grotesque')],
      spoileredTagIds: [tagId('questionable')],
      hiddenComplex: null,
      spoileredComplex: null,
    },
    {
      id: FILTER_IDS.maximumSpoilers,
      name: 'Maximum Spoilers',
      description: 'Spoilers everything that is not rated safe.',
      userId: null,
      userCount: 1234,
      system: true,
      public: false,
      hiddenTagIds: [],
      spoileredTagIds: RATING_TAGS.filter((t) => t !== 'safe').map(tagId),
      hiddenComplex: null,
      spoileredComplex: null,
    },
    {
      id: FILTER_IDS.ownedPrivate,
      name: 'Bot owner filter',
      description: 'Private filter of BotOwner.',
      userId: OWNER.id,
      userCount: 1,
      system: false,
      public: false,
      hiddenTagIds: [tagId('explicit'), tagId('grotesque'), tagId('hidden test tag')],
      spoileredTagIds: [tagId('questionable'), tagId('spoiler:s09e26')],
      hiddenComplex: 'score.lte:-10',
      spoileredComplex: 'semi-grimdark\r\nuploader:nobody-at-all',
    },
    {
      id: FILTER_IDS.ownerPublic,
      name: 'Bot owner filter',
      description: 'Public filter of BotOwner.',
      userId: OWNER.id,
      userCount: 1,
      system: false,
      public: true,
      hiddenTagIds: [tagId('explicit'), tagId('grotesque'), tagId('hidden test tag')],
      spoileredTagIds: [tagId('questionable'), tagId('spoiler:s09e26')],
      hiddenComplex: 'score.lte:-10',
      spoileredComplex: 'semi-grimdark\r\nuploader:nobody-at-all',
    },
    {
      id: FILTER_IDS.otherPrivate,
      name: 'Someone else\u2019s filter',
      description: 'Private filter of another user.',
      userId: OTHER_USER.id,
      userCount: 1,
      system: false,
      public: false,
      hiddenTagIds: [tagId('safe')],
      spoileredTagIds: [],
      hiddenComplex: null,
      spoileredComplex: null,
    },
    {
      id: FILTER_IDS.public,
      name: 'No dark stuff (public)',
      description: 'Spoilers dark content.',
      userId: OTHER_USER.id,
      userCount: 17,
      system: false,
      public: true,
      hiddenTagIds: [],
      spoileredTagIds: [],
      hiddenComplex: null,
      spoileredComplex: 'grimdark || semi-grimdark',
    },
    toRecord(bestPony),
  ];
}

function buildComments(images: Map<number, ImageRecord>): CommentRecord[] {
  const recorded = z
    .object({ comments: z.array(fixtureComment) })
    .parse(fixture('derpibooru_2024_search_comments_response.json')).comments;
  const anonAvatar =
    'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxMjUiIGhlaWdodD0iMTI1Ii8+';
  const comments: CommentRecord[] = recorded.map((c) => ({
    id: c.id,
    imageId: c.image_id,
    author: c.author,
    userId: c.user_id,
    avatar: c.avatar,
    body: c.body,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    editedAt: c.edited_at,
    editReason: c.edit_reason,
  }));
  const make = (
    id: number,
    imageId: number,
    body: string | null,
    created: string,
    extra: Partial<CommentRecord> = {},
  ): CommentRecord => ({
    id,
    imageId,
    author: OWNER.name,
    userId: OWNER.id,
    avatar: 'https://example.invalid/avatars/botowner.png',
    body,
    createdAt: created,
    updatedAt: created,
    editedAt: null,
    editReason: null,
    ...extra,
  });
  comments.push(
    make(COMMENT_IDS.onSafe, IDS.safe, 'Lovely picture! See also >>102', '2023-04-01T10:00:00Z'),
    make(COMMENT_IDS.hostile, IDS.safe, HOSTILE_DESCRIPTION.slice(0, 300), '2023-04-02T10:00:00Z', {
      author: '@everyone',
      userId: 4243,
    }),
    make(COMMENT_IDS.onDeleted, IDS.deleted, 'This one will be gone.', '2023-04-03T10:00:00Z'),
    make(COMMENT_IDS.moderated, IDS.safe, null, '2023-04-04T10:00:00Z', {
      author: 'Rule Breaker',
      userId: 4244,
    }),
    make(COMMENT_IDS.anonymous, IDS.safe, 'Anonymous thoughts on ponies.', '2023-04-05T10:00:00Z', {
      author: 'Background Pony #1A2B',
      userId: null,
      avatar: anonAvatar,
    }),
    make(COMMENT_IDS.onSuggestive, IDS.suggestive, 'Spicy one, this.', '2023-04-07T10:00:00Z'),
    make(COMMENT_IDS.edited, IDS.littlepip, 'Edited: fixed a typo', '2023-04-06T10:00:00Z', {
      updatedAt: '2023-04-06T11:00:00Z',
      editedAt: '2023-04-06T11:00:00Z',
      editReason: 'typo',
    }),
  );
  for (const comment of comments) {
    const image = images.get(comment.imageId);
    if (image && image.id >= 100) image.commentCount += 1;
  }
  return comments;
}

function buildForums(): { forums: ForumRecord[]; topics: TopicRecord[]; posts: PostRecord[] } {
  const forums = z
    .object({ forums: z.array(fixtureForum) })
    .parse(fixture('derpibooru_2024_forums_index_response.json'))
    .forums.map((f) => ({ name: f.name, shortName: f.short_name, description: f.description }));
  const recordedTopics = z
    .object({ topics: z.array(fixtureTopic) })
    .parse(fixture('derpibooru_2024_forum_topics_index_response.json')).topics;
  const topics: TopicRecord[] = recordedTopics.map((t) => ({
    forum: FORUM.art,
    slug: t.slug,
    title: t.title,
    author: t.author,
    userId: t.user_id,
    sticky: t.sticky,
    locked: t.locked,
    viewCount: t.view_count,
    lastRepliedToAt: t.last_replied_to_at,
  }));
  topics.push(
    {
      forum: FORUM.dis,
      slug: FORUM.botTopic,
      title: 'Bot testing thread <@123> @everyone',
      author: OWNER.name,
      userId: OWNER.id,
      sticky: false,
      locked: false,
      viewCount: 42,
      lastRepliedToAt: null,
    },
    {
      forum: FORUM.dis,
      slug: FORUM.lockedTopic,
      title: 'Locked and empty',
      // Posted anonymously: the board names the author as it names anonymous posters.
      author: 'Background Pony #D0C5',
      userId: null,
      sticky: false,
      locked: true,
      viewCount: 0,
      lastRepliedToAt: null,
    },
  );
  const recordedPosts = z
    .object({ posts: z.array(fixturePost) })
    .parse(fixture('derpibooru_2024_topic_posts_index_response.json')).posts;
  const posts: PostRecord[] = recordedPosts.map((p) => ({
    id: p.id,
    topicKey: `${FORUM.art}/${FORUM.artTopic}`,
    author: p.author,
    userId: p.user_id,
    avatar: p.avatar,
    body: p.body,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
    editedAt: p.edited_at,
    editReason: p.edit_reason,
  }));
  const anonAvatar = 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=';
  const start = Date.UTC(2024, 0, 1);
  for (let n = 0; n < 30; n += 1) {
    const id = POST_IDS.botFirst + n;
    const created = iso(start + n * 3_600_000);
    let body: string | null = `Post number ${n + 1} in the bot thread. See >>101 and [a tag](/tags/safe).`;
    let author: string | null = n % 2 === 0 ? OWNER.name : OTHER_USER.name;
    let userId: number | null = n % 2 === 0 ? OWNER.id : OTHER_USER.id;
    let avatar = 'https://example.invalid/avatars/user.png';
    if (id === POST_IDS.hostile) body = HOSTILE_DESCRIPTION.slice(0, 400);
    if (id === POST_IDS.moderated) body = null;
    if (id === POST_IDS.anonymous) {
      author = 'Background Pony #C0FF';
      userId = null;
      avatar = anonAvatar;
    }
    posts.push({
      id,
      topicKey: `${FORUM.dis}/${FORUM.botTopic}`,
      author,
      userId,
      avatar,
      body,
      createdAt: created,
      updatedAt: created,
      editedAt: null,
      editReason: null,
    });
  }
  return { forums, topics, posts };
}

function buildGalleries(): GalleryRecord[] {
  const recorded = z
    .object({ galleries: z.array(fixtureGallery) })
    .parse(fixture('derpibooru_2024_search_galleries_response.json')).galleries;
  const galleries: GalleryRecord[] = recorded.map((g) => ({
    id: g.id,
    title: g.title,
    description: g.description,
    spoilerWarning: g.spoiler_warning,
    thumbnailId: g.thumbnail_id,
    user: g.user,
    userId: g.user_id,
    imageIds: [],
  }));
  galleries.push({
    id: GALLERY_IDS.owner,
    title: 'Bot owner favourites',
    description: 'Images for **gallery** tests.',
    spoilerWarning: '',
    thumbnailId: IDS.safe,
    user: OWNER.name,
    userId: OWNER.id,
    // Gallery order differs from id order on purpose (sf=gallery_id:N sorts by position).
    imageIds: [IDS.littlepip, IDS.safe, IDS.multiCredit, IDS.animatedGif, 1010, 1005],
  });
  galleries.push({
    id: GALLERY_IDS.hostile,
    title: `@everyone **Hostile** <@123> [gallery](https://evil.example) ${'y'.repeat(400)}`,
    description: HOSTILE_DESCRIPTION,
    spoilerWarning: '@here <@&456> **warning**',
    thumbnailId: IDS.safe,
    user: '@everyone',
    userId: OTHER_USER.id,
    imageIds: [IDS.safe, IDS.multiCredit],
  });
  galleries.push({
    id: GALLERY_IDS.spicy,
    title: 'Spicy secret collection',
    description: 'Spicy words about spicy pictures.',
    spoilerWarning: 'Spicy warning',
    thumbnailId: IDS.suggestive,
    user: OTHER_USER.name,
    userId: OTHER_USER.id,
    imageIds: [IDS.suggestive, IDS.safe],
  });
  return galleries;
}

function buildUsers(): UserRecord[] {
  const joey = fixtureUser.parse(
    z.array(z.unknown()).parse(fixture('derpibooru_2024_profile_216494_as_array.json'))[0],
  );
  return [
    {
      id: joey.id,
      name: joey.name,
      slug: joey.slug,
      role: joey.role,
      description: joey.description,
      avatarUrl: joey.avatar_url,
      createdAt: joey.created_at,
      commentsCount: joey.comments_count,
      uploadsCount: joey.uploads_count,
      postsCount: joey.posts_count,
      topicsCount: joey.topics_count,
      links: joey.links,
      awards: joey.awards,
      currentFilterId: FILTER_IDS.default,
      imagesPerPage: 15,
    },
    {
      id: OWNER.id,
      name: OWNER.name,
      slug: OWNER.name,
      role: 'user',
      description: 'I run a **Discord bot**. @everyone <@123>',
      avatarUrl: 'https://example.invalid/avatars/botowner.png',
      createdAt: '2020-01-01T00:00:00Z',
      commentsCount: 5,
      uploadsCount: 1,
      postsCount: 15,
      topicsCount: 1,
      links: [],
      awards: [
        {
          id: 27,
          title: 'Artist',
          label: null,
          awarded_on: '2021-02-03T04:05:06Z',
          image_url: '/badges/artist.svg',
        },
      ],
      currentFilterId: FILTER_IDS.ownedPrivate,
      imagesPerPage: 25,
    },
    {
      id: OTHER_USER.id,
      name: OTHER_USER.name,
      slug: 'Other+User',
      role: 'user',
      description: null,
      avatarUrl: null,
      createdAt: '2021-06-01T00:00:00Z',
      commentsCount: 0,
      uploadsCount: 0,
      postsCount: 15,
      topicsCount: 0,
      links: [],
      awards: [
        {
          id: 5,
          title: 'Old timer',
          label: '',
          awarded_on: '2021-06-02T00:00:00Z',
          image_url: '/badges/old.svg',
        },
      ],
      currentFilterId: FILTER_IDS.default,
      imagesPerPage: 15,
    },
  ];
}

/** Builds a fresh copy of the whole data set (callers may mutate it: uploads, featured). */
export function createDataset(): Dataset {
  const tagSpecs = explicitTags();
  const implications = new Map<string, string[]>();
  for (const t of tagSpecs) if (t.implies.length > 0) implications.set(t.name, t.implies);

  const images = new Map<number, ImageRecord>();
  for (const image of fixtureImages()) images.set(image.id, image);
  for (const spec of [...namedImages(), ...fillerImages()])
    images.set(spec.id, makeImage(spec, implications));

  const tags = buildTags(images.values(), tagSpecs);
  const tagIds = new Map(tags.map((t) => [t.name, t.id]));
  const tagId = (name: string): number => {
    const id = tagIds.get(name);
    if (id === undefined) throw new Error(`fake philomena data: no tag ${name}`);
    return id;
  };
  const comments = buildComments(images);
  const { forums, topics, posts } = buildForums();
  return {
    images,
    tags,
    comments,
    forums,
    topics,
    posts,
    filters: buildFilters(tagId),
    galleries: buildGalleries(),
    users: buildUsers(),
    featuredId: IDS.featured,
    uploads: new Map(),
  };
}
