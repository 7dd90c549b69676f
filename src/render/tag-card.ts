/**
 * The tag card: name, category, image count, descriptions, aliases, implications, the spoiler image and
 * an example image, which is gated like any image card (its picture only where it may be shown).
 *
 * Outside age-restricted channels the card keeps to the name, category, count, link and the gated
 * example: descriptions, aliases and implications are board text about the tag (for a rating tag or an
 * adult tag, adult text), and the spoiler image is a picture any board staff member can set, whatever
 * its rating. The tag's name is shown: the member typed it. A spoiler channel is a plain channel for
 * that, and an embed cannot spoiler a picture, so there the card carries none: the example is linked,
 * credited and sourced, its picture one click away.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import { sayEnglish, type Say } from '../i18n/index.js';
import type { Image, Tag } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { tagNameOfSlug, wellFormed } from '../philomena/tags.js';
import { httpsUrl, imagePageUrl, tagPageUrl } from '../philomena/urls.js';
import { creditLine, sourceLine } from './credit-and-sources.js';
import { pictureOf } from './media.js';
import { NEUTRAL_COLOUR } from './rating-labels.js';
import { ageRestrictedFor, mayShow, unratedMayShow } from './rating-rule.js';
import { spoileringRule, type ContentRules } from './content-rules.js';
import { EMBED_FIELD_VALUE_MAX, fitEmbeds } from './limits.js';
import { boardMarkdownToDiscord } from './board-markdown.js';
import { escapeInline, joinWithin, maskedLink, truncate, truncateMarkdown } from './discord-text.js';

export interface TagCardContext {
  readonly site: Site;
  readonly ageRestricted: boolean;
  /** An image carrying the tag; shown only where the image may be shown. */
  readonly example?: Image;
  /** A spoiler channel: no picture at all (an embed cannot spoiler it), and the plain channel's rule. */
  readonly spoilerChannel?: boolean;
  /** The rules in layers (content-rules.ts) the example obeys; the floor's when not given. */
  readonly rules?: ContentRules;
  /**
   * The other side of an alias: when `tag` is the target, the alias the user asked for; when `tag` is
   * itself an alias (`aliased_tag` set), its target. Either way the card shows the target.
   */
  readonly aliasOf?: Tag;
  /** The card's own words (`tagcard.*`), in the language it goes out in; English when not given. */
  readonly say?: Say;
}

/** Colours of the board's tag categories. */
const CATEGORY_COLOURS: Readonly<Record<string, number>> = {
  rating: 0x418dd9,
  origin: 0x6f66d6,
  character: 0x4aa158,
  oc: 0xb157b7,
  species: 0xb16b50,
  'body-type': 0x8a8a8a,
  'content-fanmade': 0xcc8eb5,
  'content-official': 0xbfb22c,
  spoiler: 0xd8415a,
  error: 0xd45460,
};

const LIST_MAX = 600;

/** The API lists aliases, implications and `aliased_tag` as slugs; shown as names, linked by slug. */
function tagName(slugOrName: string): string {
  return tagNameOfSlug(slugOrName.trim());
}

function tagLinks(slugs: readonly string[], site: Site, max: number): string {
  const links = slugs.map((slug) =>
    maskedLink(escapeInline(truncate(tagName(slug), 80)), tagPageUrl(site, wellFormed(slug))),
  );
  return joinWithin(links, ', ', max).text;
}

function exampleParts(
  example: Image | undefined,
  ctx: TagCardContext,
  ageRestricted: boolean,
  say: Say,
): { field?: APIEmbedField; picture?: string } {
  if (example === undefined || example.kind !== 'image') return {};
  const link = maskedLink(`#${example.id}`, imagePageUrl(ctx.site, example.id));
  const showable =
    mayShow(example, ageRestricted, ctx.rules) && !example.spoilered && example.thumbnails_generated;
  const found = showable ? pictureOf(example, ctx.site).picture : null;
  // An embed cannot spoiler a picture: a spoiler channel's, or one a server's or channel's own spoilered
  // tag covers, stays behind the link.
  const spoilerRule = ctx.rules === undefined ? undefined : spoileringRule(example.tags, ctx.rules);
  const withheld = found !== null && (ctx.spoilerChannel === true || spoilerRule !== undefined);
  const picture = withheld ? null : found;
  // Like every card, the example credits its artists and shows its sources, picture or not.
  const value = [
    withheld
      ? spoilerRule !== undefined
        ? // Whose rules they are: the channel's list sits on top of the server's.
          say('tagcard.example.spoilered-by-rules', {
            link,
            layer: spoilerRule.layer === 'channel' ? 'channel' : 'server',
          })
        : say('tagcard.example.spoiler-channel', { link })
      : picture === null
        ? say('tagcard.example.not-shown', { link })
        : link,
    say('tagcard.example.credit', { credit: creditLine(example, ctx.site, 400, say) }),
    say('tagcard.example.source', {
      source: sourceLine(example, 400, !mayShow(example, ageRestricted, ctx.rules), say),
    }),
  ].join('\n');
  const field: APIEmbedField = { name: say('tagcard.field.example'), value };
  return picture === null ? { field } : { field, picture };
}

export function tagCard(tag: Tag, ctx: TagCardContext): APIEmbed {
  const { site } = ctx;
  const say = ctx.say ?? sayEnglish;
  // Show the target of an alias; remember the alias to say where the user came from.
  let shown = tag;
  let alias: Tag | undefined;
  if (tag.aliased_tag !== null && ctx.aliasOf !== undefined && ctx.aliasOf.aliased_tag === null) {
    shown = ctx.aliasOf;
    alias = tag;
  } else if (tag.aliased_tag === null && ctx.aliasOf !== undefined) {
    alias = ctx.aliasOf;
  }

  const notes: string[] = [];
  if (alias !== undefined) {
    notes.push(say('tagcard.alias-here', { alias: escapeInline(truncate(alias.name, 100)) }));
  } else if (shown.aliased_tag !== null) {
    const target = maskedLink(
      escapeInline(truncate(tagName(shown.aliased_tag), 100)),
      tagPageUrl(site, wellFormed(shown.aliased_tag)),
    );
    notes.push(say('tagcard.alias-of', { target }));
  }
  // A spoiler channel is a plain channel for the rating rule, whatever else the context says.
  const ageRestricted = ageRestrictedFor(ctx);
  // Descriptions, aliases, implications and the spoiler image: what no rating covers.
  const full = unratedMayShow(ageRestricted);
  const short = full ? shown.short_description.trim() : '';
  if (short !== '') notes.push(`*${escapeInline(truncate(short, 300))}*`);
  const long = full ? shown.description.trim() : '';
  if (long !== '') notes.push(truncateMarkdown(boardMarkdownToDiscord(long, site), 2500));

  const fields: APIEmbedField[] = [
    {
      name: say('tagcard.field.category'),
      // The category is the board's word (`character`, `origin` ...): shown as it wrote it.
      value: shown.category ? escapeInline(shown.category) : say('tagcard.category.none'),
      inline: true,
    },
    {
      name: say('tagcard.field.images'),
      value: say('tagcard.images', { count: shown.images }),
      inline: true,
    },
  ];
  if (shown.dnp_entries.length > 0) {
    fields.push({
      name: say('tagcard.field.dnp'),
      value: say('tagcard.dnp-entries', { count: shown.dnp_entries.length }),
      inline: true,
    });
  }
  const aliases = full ? shown.aliases.filter((name) => name.trim() !== '') : [];
  if (aliases.length > 0) {
    fields.push({
      name: say('tagcard.field.aliases', { count: aliases.length }),
      value: joinWithin(
        aliases.map((slug) => escapeInline(truncate(tagName(slug), 80))),
        ', ',
        LIST_MAX,
      ).text,
    });
  }
  if (full && shown.implied_tags.length > 0) {
    fields.push({
      name: say('tagcard.field.implies', { count: shown.implied_tags.length }),
      value: tagLinks(shown.implied_tags, site, EMBED_FIELD_VALUE_MAX),
    });
  }
  if (full && shown.implied_by_tags.length > 0) {
    fields.push({
      name: say('tagcard.field.implied-by', { count: shown.implied_by_tags.length }),
      value: tagLinks(shown.implied_by_tags, site, LIST_MAX),
    });
  }
  const example = exampleParts(ctx.example, ctx, ageRestricted, say);
  if (example.field) fields.push(example.field);

  const embed: APIEmbed = {
    title: escapeInline(truncate(shown.name, 200)),
    url: tagPageUrl(site, wellFormed(shown.slug.trim() === '' ? shown.name : shown.slug)),
    color: (shown.category ? CATEGORY_COLOURS[shown.category] : undefined) ?? NEUTRAL_COLOUR,
    fields,
    footer: { text: site.name },
  };
  if (notes.length > 0) embed.description = notes.join('\n\n');
  const spoilerImage = full ? httpsUrl(shown.spoiler_image_uri, site) : null;
  if (spoilerImage !== null) embed.thumbnail = { url: spoilerImage };
  if (example.picture !== undefined) embed.image = { url: example.picture };
  return fitEmbeds([embed])[0] ?? embed;
}
