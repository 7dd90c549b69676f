/**
 * The image card: one embed per image, gated by the rating rule (./rating-rule.ts).
 *
 * Every card credits the artists (or says they are unknown), lists every source, and links to the image
 * page. What else it shows depends on the gate: outside age-restricted channels only an image rated
 * exactly `safe` shows its picture, tags and description; a spoilered image shows neither picture nor
 * description until revealed; deleted and merged images get a stub card. In a spoiler channel every
 * picture goes behind Discord's spoiler: the media (for Components V2, chosen by ./media.ts) is marked
 * spoiler, and the embed, which cannot spoiler its image, carries none and says so. Board text is escaped
 * and mention-proof, every URL is https (through urls.ts), and the card fits Discord's limits by itself.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import { sayEnglish, type Say } from '../i18n/index.js';
import type { HiddenImage, Image, VisibleImage } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { ratingOf } from '../philomena/tags.js';
import { imagePageUrl } from '../philomena/urls.js';
import { EMBED_FIELD_VALUE_MAX, EMBEDS_TOTAL_MAX, embedLength, fitEmbeds } from './limits.js';
import { boardMarkdownToDiscord } from './board-markdown.js';
import {
  bareUrl,
  escapeInline,
  joinWithin,
  maskedLink,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from './discord-text.js';
import { creditField, sourceFields } from './credit-and-sources.js';
import { sharedDescriptionMemo, type DescriptionMemo } from './description-memo.js';
import { cardMedia, pictureOf, type CardMedia } from './media.js';
import { NEUTRAL_COLOUR, ratingColour, ratingTagsFirst, ratingWords } from './rating-labels.js';
import { ageRestrictedFor, mayPictureSpoilered, mayShow, type CardFilter, type Gate } from './rating-rule.js';
import {
  hiddenNotice,
  hidingRule,
  spoileredNotice,
  spoileringRule,
  type ContentRules,
} from './content-rules.js';

export interface CardContext {
  readonly site: Site;
  /** The channel allows non-safe images. */
  readonly ageRestricted: boolean;
  /** The applied filter, to tell which of its tags hit a spoilered image. */
  readonly filter?: CardFilter;
  /**
   * Reveal (ephemeral, to one member) ignores `spoilered` and `spoilerChannel`, never the rating rule: a
   * picture shown to the clicker alone needs no spoiler.
   */
  readonly reveal?: boolean;
  /**
   * A spoiler channel (docs/spoiler-channels.md): for the rating rule a plain channel (`ageRestricted` is
   * false there), and every picture posted there goes behind Discord's spoiler.
   */
  readonly spoilerChannel?: boolean;
  /**
   * The rules in layers that apply here (content-rules.ts); the floor's defaults when not given, so a card
   * made without a view still keeps out what Discord forbids.
   */
  readonly rules?: ContentRules;
  /** Appended to the footer, e.g. "3 of 120". */
  readonly footerExtra?: string;
  /** Where rendered descriptions are kept; the process's shared memo (sharedDescriptionMemo) when not given. */
  readonly descriptions?: DescriptionMemo;
  /** The card's words, in the language it goes out in (src/i18n); English when not given. */
  readonly say?: Say;
}

export interface ImageCard {
  readonly embed: APIEmbed;
  readonly gate: Gate;
  /**
   * A Reveal button may show its picture to one member: spoilered by the filter, or (a spoiler channel)
   * a picture the embed form leaves out.
   */
  readonly revealable: boolean;
  /**
   * Made for a spoiler channel: `media` is behind a spoiler, and the embed carries no picture (its
   * description opens with {@link SPOILER_CHANNEL_NOTICE} where it left one out).
   */
  readonly spoilerChannel?: boolean;
  /**
   * Why the picture is behind a spoiler when a server's or channel's own spoilered tag put it there: the
   * opening of the embed's description (the V2 card keeps it as its notice).
   */
  readonly ruleNotice?: string;
  /**
   * What a Components V2 media gallery shows, decided here by the same gates as the embed: null where
   * the embed shows no picture, and on a spoilered card (which shows none) only as a native spoiler.
   */
  readonly media: CardMedia | null;
  /**
   * The language the card was made in (its context's, English by default): its Components V2 form
   * (./card-v2.ts) and its buttons write their words in the same one.
   */
  readonly say: Say;
}

/** Rating tags first (in the board's order), then the rest as the image lists them. */
function tagsField(image: VisibleImage, say: Say): APIEmbedField | null {
  const tags = ratingTagsFirst(image.tags).map((tag) => escapeInline(truncate(tag, 100)));
  if (tags.length === 0) return null;
  const more = (count: number): string => say('card.more', { count });
  return {
    name: say('card.field.tags', { count: image.tags.length }),
    value: joinWithin(tags, ', ', EMBED_FIELD_VALUE_MAX, more).text,
  };
}

function unixSeconds(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

function statFields(image: VisibleImage, say: Say): APIEmbedField[] {
  const score = {
    score: image.score,
    up: image.upvotes,
    down: image.downvotes,
    faves: image.faves,
    comments: image.comment_count,
  };
  const size = { width: image.width, height: image.height, format: escapeInline(image.format.toUpperCase()) };
  const fields: APIEmbedField[] = [
    { name: say('card.field.score'), value: say('card.score', score), inline: true },
    { name: say('card.field.size'), value: say('card.size', size), inline: true },
  ];
  // Discord's own timestamp: every member reads the date in their client's language and time zone.
  const uploaded = unixSeconds(image.first_seen_at) ?? unixSeconds(image.created_at);
  if (uploaded !== null)
    fields.push({ name: say('card.field.uploaded'), value: `<t:${uploaded}:d>`, inline: true });
  return fields;
}

/** Footers show text as typed (no Markdown), so only mentions are neutralised. */
function footer(ctx: CardContext): { text: string } {
  const extra = ctx.footerExtra?.trim();
  return { text: neutraliseMentions(extra ? `${ctx.site.name} · ${extra}` : ctx.site.name) };
}

/** The filter's tags that hit the image (ids and names align: the server builds both from one list). */
function filterHits(image: VisibleImage, ctx: CardContext): { spoilered: string[]; hidden: string[] } {
  const spoileredIds = new Set(ctx.filter?.spoileredTagIds ?? []);
  const hiddenIds = new Set(ctx.filter?.hiddenTagIds ?? []);
  const spoilered: string[] = [];
  const hidden: string[] = [];
  image.tag_ids.forEach((id, index) => {
    const name = image.tags[index];
    if (name === undefined) return;
    if (hiddenIds.has(id)) hidden.push(name);
    else if (spoileredIds.has(id)) spoilered.push(name);
  });
  return { spoilered, hidden };
}

/**
 * Why the filter spoilers the image (which filter, which of its tags), then how the notice ends
 * (`card.spoiler.end`, which the V2 card, picturing it behind a spoiler, rewords). The filter's name and
 * the tags are the board's, as written.
 */
function spoilerNotice(image: VisibleImage, ctx: CardContext, say: Say): string {
  const { spoilered, hidden } = filterHits(image, ctx);
  const list = (names: string[]): string =>
    joinWithin(
      names.map((name) => `**${escapeInline(truncate(name, 100))}**`),
      ', ',
      600,
      (count) => say('card.more', { count }),
    ).text;
  const hits =
    hidden.length > 0 && spoilered.length > 0
      ? 'both'
      : hidden.length > 0
        ? 'hidden'
        : spoilered.length > 0
          ? 'spoilered'
          : 'none';
  const why = say('card.spoiler.filter', {
    hits,
    named: ctx.filter ? 'yes' : 'no',
    filter: ctx.filter ? escapeInline(truncate(ctx.filter.name, 100)) : '',
    hidden: list(hidden),
    spoilered: list(spoilered),
  });
  return `${why} ${say('card.spoiler.end')}`;
}

function stubCard(image: HiddenImage, ctx: CardContext, say: Say): ImageCard {
  const merged = image.duplicate_of !== null;
  const target = image.duplicate_of ?? image.id;
  const description = merged
    ? say('card.stub.merged', { link: maskedLink(`#${target}`, imagePageUrl(ctx.site, target)) })
    : image.deletion_reason
      ? say('card.stub.deleted-reason', { reason: escapeInline(truncate(image.deletion_reason, 1000)) })
      : say('card.stub.deleted');
  const embed: APIEmbed = {
    title: `#${image.id}`,
    url: imagePageUrl(ctx.site, image.id),
    color: NEUTRAL_COLOUR,
    description,
    footer: footer(ctx),
  };
  return { embed: fitOne(embed), gate: merged ? 'merged' : 'deleted', revealable: false, media: null, say };
}

function fitOne(embed: APIEmbed): APIEmbed {
  return fitEmbeds([embed])[0] ?? embed;
}

/*
 * The card's notices in English, as the catalogue's `card.notice.*` messages say them (a test keeps them
 * equal): for code and tests that name them. The card itself takes them from its language's catalogue.
 */

/** The opening of a processing card's description (the V2 card tells it apart from the board's text). */
export const PROCESSING_NOTICE = 'Still processing: the picture is not ready yet.';

/**
 * The opening of an embed made for a spoiler channel that leaves its picture out: an embed cannot put its
 * image behind a spoiler (the Components V2 form of the card does, and leaves this out).
 */
export const SPOILER_CHANNEL_NOTICE =
  'Spoiler channel: the picture is not in this card, which cannot hide it behind a spoiler. **Reveal** shows it to you alone.';

/** The same, where the server's or channel's own spoilered tags (not the channel) put the picture behind a spoiler. */
export const SPOILERED_PICTURE_NOTICE =
  'The picture is not in this card, which cannot hide it behind a spoiler. **Reveal** shows it to you alone.';

/** Room for the description once the rest of the card is counted, kept readable. */
const DESCRIPTION_MAX = 1800;

export function imageCard(image: Image, ctx: CardContext): ImageCard {
  const say = ctx.say ?? sayEnglish;
  if (image.kind === 'hidden') return stubCard(image, ctx, say);
  const { site } = ctx;
  const ratings = ratingOf(image.tags);
  // A server's or channel's own spoilered tag puts the picture behind Discord's spoiler, as a spoiler
  // channel does. Reveal shows the picture to the clicker alone: no spoiler needed there.
  const spoilerRule =
    ctx.reveal === true || ctx.rules === undefined ? undefined : spoileringRule(image.tags, ctx.rules);
  const channelSpoiler = (ctx.spoilerChannel === true || spoilerRule !== undefined) && ctx.reveal !== true;
  // A spoiler channel is a plain channel for the rating rule, whatever else the context says (fail closed).
  const ageRestricted = ageRestrictedFor(ctx);
  const base: APIEmbed = {
    title: `#${image.id}`,
    url: imagePageUrl(site, image.id),
    color: ratingColour(ratings),
    footer: footer(ctx),
  };
  const rating: APIEmbedField = {
    name: say('card.field.rating'),
    value: escapeInline(ratingWords(ratings, say)),
    inline: true,
  };
  const credit = creditField(image, site, say);

  // A rule hides the image whatever the channel and the filter say, and Reveal never lifts it: the card
  // credits and links like the rating-restricted one, and says which layer hid it.
  const rule = hidingRule(image.tags, ctx.rules);
  if (rule !== undefined) {
    ctx.rules?.observe?.('hidden', rule.layer);
    const embed: APIEmbed = {
      ...base,
      description: hiddenNotice(rule.layer, say),
      fields: [credit, ...sourceFields(image, true, say), rating],
    };
    return { embed: fitOne(embed), gate: 'rule-hidden', revealable: false, media: null, say };
  }

  if (!mayShow(image, ageRestricted, ctx.rules)) {
    const embed: APIEmbed = {
      ...base,
      description:
        ratings.size === 0
          ? say('card.restricted.no-rating')
          : say('card.restricted.rated', { rating: escapeInline(ratingWords(ratings, say)) }),
      fields: [credit, ...sourceFields(image, true, say), rating],
    };
    return { embed: fitOne(embed), gate: 'rating-restricted', revealable: false, media: null, say };
  }

  if (image.spoilered && ctx.reveal !== true) {
    const embed: APIEmbed = {
      ...base,
      description: spoilerNotice(image, ctx, say),
      fields: [credit, ...sourceFields(image, false, say), rating, ...statFields(image, say)],
    };
    // A native spoiler only where the filter is known and hides none of the image's tags: a hidden
    // image keeps no picture, and Reveal (to one member) stays the way to see it.
    const spoilerable = mayPictureSpoilered(image, ageRestricted, ctx.filter, ctx.rules);
    const media = spoilerable ? cardMedia(image, site, { spoiler: true, filtered: true, say }) : null;
    return {
      embed: fitOne(embed),
      gate: 'spoilered',
      revealable: true,
      media,
      say,
      ...(channelSpoiler ? { spoilerChannel: true } : {}),
    };
  }

  const processing = !image.thumbnails_generated;
  const { picture, video } = pictureOf(image, site);
  const fields: APIEmbedField[] = [
    credit,
    ...sourceFields(image, false, say),
    rating,
    ...statFields(image, say),
  ];
  // In a spoiler channel (or under a spoilered rule) the embed keeps no picture: it cannot spoiler one.
  const withheld = !processing && (picture !== null || video !== null) && channelSpoiler;
  // Nor the video's own link, which opens it unspoilered (the V2 form drops it too; Reveal shows it).
  if (video !== null && !processing && !channelSpoiler)
    fields.push({ name: say('card.field.video'), value: bareUrl(video) });
  const tags = tagsField(image, say);
  if (tags) fields.push(tags);
  const embed: APIEmbed = { ...base, fields };
  if (!processing && picture !== null && !withheld) embed.image = { url: picture };

  const ruleNotice = spoilerRule === undefined ? '' : spoileredNotice(spoilerRule, say);
  if (spoilerRule !== undefined) ctx.rules?.observe?.('spoilered', spoilerRule.layer);
  const withheldNotice = say(
    ctx.spoilerChannel === true ? 'card.notice.spoiler-channel' : 'card.notice.spoilered-picture',
  );
  const notice = [ruleNotice, processing ? say('card.notice.processing') : withheld ? withheldNotice : '']
    .filter((part) => part !== '')
    .join('\n\n');
  const room = Math.min(DESCRIPTION_MAX, EMBEDS_TOTAL_MAX - embedLength(embed) - notice.length - 2);
  const descriptions = ctx.descriptions ?? sharedDescriptionMemo();
  const text =
    room > 40 && image.description.trim() !== ''
      ? descriptions.get(image, site, room, () =>
          truncateMarkdown(boardMarkdownToDiscord(image.description, site), room),
        )
      : '';
  const description = [notice, text].filter((part) => part !== '').join('\n\n');
  if (description !== '') embed.description = description;
  return {
    embed: fitOne(embed),
    gate: processing ? 'processing' : 'full',
    revealable: withheld,
    media: processing ? null : cardMedia(image, site, { spoiler: channelSpoiler, filtered: false, say }),
    say,
    ...(channelSpoiler ? { spoilerChannel: true } : {}),
    ...(ruleNotice === '' ? {} : { ruleNotice }),
  };
}
