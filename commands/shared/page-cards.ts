/**
 * Cards for board pages that are not images, shared by `/tag` and link unfurls (and Show card): a tag's
 * card (description, aliases, implications, an example image under the rating rule), a search's first
 * result with the search's total, comments, forum topics and posts, galleries and profiles.
 *
 * The words on these pages follow the pictures (words about an adult picture are adult text): text
 * written about images shows only where the picture it is about would show in full here, under the
 * rating rule and the server's filter (a comment's excerpt with its image's card, a gallery's title,
 * spoiler warning and description with its cover's). Forum titles and posts are about no image: they are
 * members' own words, which no rating and no filter covers, so the bot cannot tell a safe one, and
 * outside age-restricted channels (spoiler channels included) their cards hold only the forum's name, the
 * author, the figures and the link. A spoiler channel needs nothing more here: these cards carry no
 * picture of their own, and the image cards beside them spoiler theirs (the view carries it into their
 * context).
 */
import type { APIEmbed } from 'discord.js';
import { isPhilomenaError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Comment, Gallery, Image, Post, Tag } from '../../src/philomena/schemas.js';
import { quoteTag, tagNameOfSlug } from '../../src/philomena/tags.js';
import { NotFoundError } from '../../src/philomena/errors.js';
import {
  boardMarkdownToDiscord,
  escapeInline,
  imageCard,
  neutraliseMentions,
  tagCard,
  truncate,
  truncateMarkdown,
  type ImageCard,
} from '../../src/render/index.js';
import { boardQuery, safeSearchQuery, unratedMayShow, wordsAboutImageMayShow } from './safety.js';
import { sayIn, type Say } from './say.js';
import { cardContext, filterContext, showImage } from './show-image.js';
import type { View } from './view.js';

/**
 * The example is the first search result: filtered, and only `safe` outside age-restricted channels. It
 * is an extra: when the search fails (the board limits its search paths on their own, so a 429 there is
 * common while tag pages still answer), the card is shown without it.
 */
async function exampleImage(
  client: PhilomenaClient,
  tag: Tag,
  view: View,
  logger: Logger,
): Promise<Image | undefined> {
  try {
    const examples = await client.searchImages({
      q: boardQuery(quoteTag(tag.name), view),
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    });
    return examples.items[0];
  } catch (error) {
    if (!isPhilomenaError(error)) throw error;
    logger.info({ err: error, tag: tag.slug }, 'no example image for the tag card');
    return undefined;
  }
}

/** The card of the tag `nameOrSlug` on `view`'s site (an alias leads to its target, and says so). */
export async function tagCardEmbed(
  client: PhilomenaClient,
  nameOrSlug: string,
  view: View,
  logger: Logger,
): Promise<APIEmbed> {
  const asked = await client.tag(nameOrSlug, { followAlias: false });
  let tag: Tag = asked;
  let aliasOf: Tag | undefined;
  if (asked.aliased_tag !== null) {
    tag = await client.tag(asked.aliased_tag);
    aliasOf = asked;
  }
  const example = await exampleImage(client, tag, view, logger);
  return tagCard(tag, {
    site: view.site,
    ageRestricted: view.ageRestricted,
    rules: view.rules,
    ...(view.spoilerChannel ? { spoilerChannel: true } : {}),
    ...(example === undefined ? {} : { example }),
    ...(aliasOf === undefined ? {} : { aliasOf }),
    say: sayIn(view.locale),
  });
}

export interface SearchCard {
  /** The first result's card; undefined when nothing matches. */
  readonly card: ImageCard | undefined;
  readonly imageId: number | undefined;
  /** One line: the query, its total on the site, and a link to the search there. */
  readonly line: string;
}

/** A search's first result (only `safe` outside age-restricted channels), and a line with its total. */
export async function searchCard(
  client: PhilomenaClient,
  query: string,
  view: View,
  logger: Logger,
): Promise<SearchCard> {
  const sent = boardQuery(query, view);
  const [page, filter] = await Promise.all([
    client.searchImages({
      q: sent,
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    }),
    filterContext(client, view.filterId, logger),
  ]);
  const first = page.items[0];
  // The link shows the search without the hidden tags left out of it: the lists are named only privately
  // (Why?), and a member's own list is nobody else's business.
  const link = `${view.site.baseUrl}/search?q=${encodeURIComponent(safeSearchQuery(query, view.ageRestricted))}`;
  const shown = `\`${truncate(query, 100).replace(/`/g, "'")}\``;
  // In <...>: Discord's own preview of a board page is not the bot's to show (it ignores the rating rule).
  const line = sayIn(view.locale)('search.line', {
    query: shown,
    site: escapeInline(view.site.name),
    count: page.total,
    link: `<${link}>`,
  });
  return {
    card: first === undefined ? undefined : imageCard(first, cardContext(view, filter)),
    imageId: first?.id,
    line,
  };
}

/** The longest excerpt of a comment or post a card shows. */
const EXCERPT_MAX = 600;

function excerpt(body: string | null, view: View, say: Say): string {
  if (body === null || body.trim() === '') return say('image.page.no-text');
  return truncateMarkdown(boardMarkdownToDiscord(body, view.site), EXCERPT_MAX);
}

function when(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? '' : `<t:${Math.floor(ms / 1000)}:R>`;
}

/**
 * A comment: its author, time and an excerpt, then the image it belongs to as a credited card. The rating
 * rule and the server's filter cover the comment too: its words are about that image, so the excerpt
 * shows only where the image's card shows its picture in full (gate `full`: allowed here, and neither
 * hidden nor spoilered by the filter).
 */
export async function commentCards(
  client: PhilomenaClient,
  commentId: number,
  view: View,
  logger: Logger,
): Promise<{ readonly embeds: APIEmbed[]; readonly image: ImageCard; readonly imageId: number }> {
  return commentCardsOf(client, await client.comment(commentId), view, logger);
}

/**
 * {@link commentCards} of a comment already read (a comment search's result); `footer` under its excerpt
 * (a result's position).
 */
export async function commentCardsOf(
  client: PhilomenaClient,
  comment: Comment,
  view: View,
  logger: Logger,
  footer?: string,
): Promise<{ readonly embeds: APIEmbed[]; readonly image: ImageCard; readonly imageId: number }> {
  const { card, fetched } = await showImage(client, comment.image_id, view, logger);
  // Words about an image a spoiler rule covers stay out too: the picture is behind a spoiler.
  const shown = wordsAboutImageMayShow(card.gate) && card.ruleNotice === undefined;
  return { embeds: [commentEmbed(comment, view, shown, footer)], image: card, imageId: fetched.image.id };
}

/**
 * A comment's embed: its author, image and link, time, and its excerpt when `shown` (else a line saying
 * it shows only where its image does). A comment whose image cannot be read is drawn with `shown` false:
 * its words are judged by a picture nobody can see.
 */
export function commentEmbed(comment: Comment, view: View, shown: boolean, footer?: string): APIEmbed {
  const say = sayIn(view.locale);
  return {
    title: truncate(
      say('image.page.comment.title', {
        author: neutraliseMentions(comment.author),
        id: String(comment.image_id),
      }),
      256,
    ),
    url: `${view.site.baseUrl}/images/${comment.image_id}#comment_${comment.id}`,
    description: [
      shown ? excerpt(comment.body, view, say) : say('image.page.comment.withheld'),
      when(comment.created_at),
    ]
      .filter((line) => line !== '')
      .join('\n'),
    ...(footer === undefined ? {} : { footer: { text: footer } }),
  };
}

/**
 * A forum topic (title, forum, author, posts, last reply), or one post of it (author, time, excerpt).
 * Outside age-restricted channels no title or excerpt (see the module comment): the forum's name, the
 * author, the figures and the link.
 */
export async function topicCard(
  client: PhilomenaClient,
  link: { readonly forum: string; readonly topic: string; readonly postId: number | undefined },
  view: View,
): Promise<APIEmbed> {
  const say = sayIn(view.locale);
  // Said in place of a forum's words outside age-restricted channels.
  const withheld = say('image.page.forum.withheld');
  const [forum, topic] = await Promise.all([client.forum(link.forum), client.topic(link.forum, link.topic)]);
  const base = `${view.site.baseUrl}/forums/${encodeURIComponent(link.forum)}/topics/${encodeURIComponent(topic.slug)}`;
  const words = unratedMayShow(view.ageRestricted);
  const title = truncate(
    neutraliseMentions(
      words
        ? `${topic.title ?? topic.slug} (${forum.name})`
        : say('image.page.forum.title', {
            kind: link.postId === undefined ? 'topic' : 'post',
            forum: forum.name,
          }),
    ),
    256,
  );
  if (link.postId !== undefined) {
    const post = await client.topicPost(link.forum, link.topic, link.postId);
    return {
      title,
      url: `${base}?post_id=${post.id}#post_${post.id}`,
      description: [
        `**${neutraliseMentions(escapeInline(post.author ?? say('image.page.anonymous')))}** ${when(post.created_at)}`,
        words ? excerpt(post.body, view, say) : withheld,
      ].join('\n'),
    };
  }
  const facts = [
    say('image.page.by', {
      author: neutraliseMentions(escapeInline(topic.author ?? say('image.page.anonymous'))),
    }),
    say('image.page.topic.posts', { count: topic.post_count }),
    ...(topic.last_replied_to_at === null
      ? []
      : [say('image.page.topic.last-reply', { when: when(topic.last_replied_to_at) })]),
    ...(topic.locked ? [say('image.page.topic.locked')] : []),
  ];
  return {
    title,
    url: base,
    description: words ? facts.join(' · ') : `${facts.join(' · ')}\n${withheld}`,
  };
}

/**
 * A post found by the post search, whose answer names neither its forum nor its topic: titled by its
 * author and, where the search was narrowed to one, the forum; linked to the board's post search for its
 * id (the page that finds it). Its words as {@link topicCard}'s: only in age-restricted channels.
 */
export function postCard(
  post: Post,
  view: View,
  options: { readonly forum?: string; readonly footer?: string } = {},
): APIEmbed {
  const say = sayIn(view.locale);
  const author = post.author ?? say('image.page.anonymous');
  const title =
    options.forum === undefined
      ? say('forum.post.title', { author })
      : say('forum.post.title.in', { author, forum: options.forum });
  const words = unratedMayShow(view.ageRestricted);
  return {
    title: truncate(neutraliseMentions(title), 256),
    url: `${view.site.baseUrl}/posts?pq=${encodeURIComponent(`id:${post.id}`)}`,
    description: [
      words ? excerpt(post.body, view, say) : say('image.page.forum.withheld'),
      when(post.created_at),
    ]
      .filter((line) => line !== '')
      .join('\n'),
    ...(options.footer === undefined ? {} : { footer: { text: options.footer } }),
  };
}

/** A gallery and whether its words may show here, judged by its cover (see {@link judgeGallery}). */
export interface JudgedGallery {
  readonly gallery: Gallery;
  /** The cover's card shows its picture in full here: the title, spoiler warning and description may show. */
  readonly wordsShown: boolean;
  readonly cover: { readonly card: ImageCard; readonly imageId: number } | undefined;
}

/**
 * A gallery's title, spoiler warning and description are words about its images: they show only where
 * the cover's card shows its picture in full (gate `full`: allowed here, and neither hidden nor spoilered
 * by the filter). A gallery without a cover, or whose cover cannot be read, fails closed.
 */
export async function judgeGallery(
  client: PhilomenaClient,
  gallery: Gallery,
  view: View,
  logger: Logger,
): Promise<JudgedGallery> {
  const shown =
    gallery.thumbnail_id === null
      ? undefined
      : await showImage(client, gallery.thumbnail_id, view, logger).catch(() => undefined);
  const wordsShown = wordsAboutImageMayShow(shown?.card.gate) && shown?.card.ruleNotice === undefined;
  return {
    gallery,
    wordsShown,
    cover: shown === undefined ? undefined : { card: shown.card, imageId: shown.fetched.image.id },
  };
}

/**
 * A judged gallery's title (mentions neutralised, not escaped: an embed title, or `escapeInline` it) and
 * its lines of words: the spoiler warning and the description where they may show, else one line saying
 * they are withheld; where its words may not show it is titled by its number.
 */
export function galleryWords(
  judged: JudgedGallery,
  view: View,
  say: Say,
): { readonly title: string; readonly lines: readonly string[] } {
  const { gallery, wordsShown } = judged;
  const hasWords = [gallery.title, gallery.spoiler_warning, gallery.description].some((t) => t.trim() !== '');
  const lines = [
    ...(wordsShown && gallery.spoiler_warning.trim() !== ''
      ? [say('image.page.gallery.spoiler-warning', { text: excerpt(gallery.spoiler_warning, view, say) })]
      : []),
    ...(wordsShown && gallery.description.trim() !== '' ? [excerpt(gallery.description, view, say)] : []),
    ...(!wordsShown && hasWords ? [say('image.page.gallery.withheld')] : []),
  ];
  const title =
    wordsShown && gallery.title.trim() !== ''
      ? gallery.title
      : say('image.page.gallery.title', { id: String(gallery.id) });
  return { title: neutraliseMentions(title), lines };
}

/** The gallery `galleryId` on `client`'s board (its search by id); a `NotFoundError` when there is none. */
export async function galleryById(client: PhilomenaClient, galleryId: number, view: View): Promise<Gallery> {
  const found = await client.searchGalleries({ q: `id:${galleryId}`, perPage: 1 });
  const gallery = found.items.find((g) => g.id === galleryId);
  if (gallery === undefined) throw new NotFoundError(`gallery ${galleryId}`, { site: view.site.id });
  return gallery;
}

/**
 * A gallery: title, creator, image count (as this view's filter sees it), and its cover image as a
 * credited card under the rating rule; its words as {@link judgeGallery} allows.
 */
export async function galleryCards(
  client: PhilomenaClient,
  galleryId: number,
  view: View,
  logger: Logger,
): Promise<{ readonly embed: APIEmbed; readonly cover: { card: ImageCard; imageId: number } | undefined }> {
  const say = sayIn(view.locale);
  const gallery = await galleryById(client, galleryId, view);
  const [count, judged] = await Promise.all([
    client
      .searchImages({
        q: boardQuery(`gallery_id:${galleryId}`, view),
        perPage: 1,
        ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
      })
      .then((page) => page.total)
      .catch(() => undefined),
    judgeGallery(client, gallery, view, logger),
  ]);
  const by = say('image.page.by', {
    author: neutraliseMentions(escapeInline(gallery.creator ?? say('image.page.someone'))),
  });
  const safe = view.ageRestricted ? 'no' : 'yes';
  const words = galleryWords(judged, view, say);
  const lines = [
    count === undefined ? by : `${by} · ${say('image.page.gallery.images', { count, safe })}`,
    ...words.lines,
  ];
  return {
    embed: {
      title: truncate(words.title, 256),
      url: `${view.site.baseUrl}/galleries/${gallery.id}`,
      description: truncateMarkdown(lines.join('\n'), 2_000),
    },
    cover: judged.cover,
  };
}

/**
 * A profile link. The board's API reads a profile by its numeric id only, and a profile page's link
 * carries the name, so the card holds what the name alone gives: the name, the link, and the uploads a
 * search by uploader finds (as this view's filter and the rating rule see them).
 */
export async function profileCard(client: PhilomenaClient, slug: string, view: View): Promise<APIEmbed> {
  const say = sayIn(view.locale);
  const name = tagNameOfSlug(slug);
  const uploads = await client
    .searchImages({
      q: boardQuery(`uploader:${quoteTag(name)}`, view),
      perPage: 1,
      ...(view.filterId === undefined ? {} : { filterId: view.filterId }),
    })
    .then((page) => page.total)
    .catch(() => undefined);
  return {
    title: truncate(neutraliseMentions(name), 256),
    url: `${view.site.baseUrl}/profiles/${encodeURIComponent(slug).replace(/%20/g, '+')}`,
    description:
      uploads === undefined
        ? say('image.page.profile', { site: escapeInline(view.site.name) })
        : say('image.page.profile.uploads', {
            site: escapeInline(view.site.name),
            count: uploads,
            safe: view.ageRestricted ? 'no' : 'yes',
          }),
  };
}
