/**
 * Link unfurling: a message with links to images gets a reply with up to three cards, under the same
 * rules as commands (the channel's age restriction, the server's filter for the link's own site). Links
 * the author fenced off are left alone: inside code, inside `<...>` (Discord's own "no preview" marker)
 * and inside `||spoilers||` (a preview would show what the author hid). Board errors are logged, never
 * replied: a chat full of "site is down" replies would be worse than silence.
 *
 * Each server (each DM channel outside servers) has a budget of cards per window (UNFURL_RATE_LIMIT), so
 * one member pasting a hundred links a minute cannot make a hundred board calls. Links over it are
 * skipped without a word (a notice would be spam of its own) and logged at debug.
 */
import type { APIButtonComponent, APIEmbed, Message } from 'discord.js';
import type { RateLimit } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import type { ImageLink, PageLink } from '../../src/philomena/links.js';
import type { Site } from '../../src/philomena/sites.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import type { MessageAnswer, MessageBody, MessageHandler, MessagePlace } from '../../src/discord/contract.js';
import { createKeyedLimiter } from '../../src/discord/keyed-limiter.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { buttonRow, cardMessage, revealButton, showImage, type ActionRow } from '../shared/show-image.js';
import {
  fitEmbeds,
  MESSAGE_CONTENT_MAX,
  truncate,
  type Gate,
  type ImageCard,
} from '../../src/render/index.js';
import {
  commentCards,
  galleryCards,
  profileCard,
  searchCard,
  tagCardEmbed,
  topicCard,
} from '../shared/page-cards.js';
import type { GuildSettings } from '../shared/guild-settings.js';
import { resolveView, type View } from '../shared/view.js';
import { whyButton } from '../shared/why-button.js';
import { sayEnglish, sayIn, type Say } from '../shared/say.js';
import type { ContentRules } from '../../src/render/content-rules.js';
import { imageReferences, mergeLinks } from './references.js';

const UNFURL_MAX_CARDS = 3;

/** Replaces each match with spaces of the same length, so offsets into the text stay valid. */
function blank(text: string, pattern: RegExp): string {
  return text.replace(pattern, (match) => ' '.repeat(match.length));
}

/**
 * The text with everything that must not unfurl blanked out: fenced and inline code, `<url>`, spoilers.
 * Order matters: code first, since backticks hide the other markers.
 */
export function maskSuppressedText(text: string): string {
  let masked = blank(text, /```[\s\S]*?```/g);
  masked = blank(masked, /(``?)[^`][\s\S]*?\1/g);
  masked = blank(masked, /<https?:\/\/[^\s>]*>/gi);
  masked = blank(masked, /\|\|[\s\S]*?\|\|/g);
  return masked;
}

/** The links of `text` that should unfurl, in order, deduplicated by the recogniser. */
export function extractUnfurlLinks(text: string, recognise: (text: string) => ImageLink[]): ImageLink[] {
  if (!text.includes('://')) return [];
  return recognise(maskSuppressedText(text));
}

/** One card of an unfurl reply, with its Reveal button when it has one. */
export interface UnfurlCard {
  readonly embed: APIEmbed;
  readonly reveal?: APIButtonComponent | undefined;
  /** An image's own card (a link to an image): alone in a reply, it may go out as Components V2. */
  readonly image?: { readonly card: ImageCard; readonly site: Site; readonly imageId: number };
}

/**
 * A reply holding one image card and nothing else goes out as that card's own message, so the one place
 * that chooses the form (`cardMessage`) may pick Components V2 (a video that plays, a native spoiler).
 * Several cards, or lines above them, stay embeds: V2's 40 components and 4,000 characters hold fewer.
 */
export function singleImageBody(
  cards: readonly UnfurlCard[],
  lines: readonly string[],
  more: number,
): MessageBody | undefined {
  const [only] = cards;
  if (cards.length !== 1 || only?.image === undefined || lines.length > 0 || more > 0) return undefined;
  return cardMessage(only.image.card, only.image.site, only.image.imageId);
}

export interface UnfurlReplyBody {
  readonly embeds: APIEmbed[];
  readonly components: ActionRow[];
  /** Cards left out because the message had no room for them (dropped from the end). */
  readonly dropped: number;
}

/** Buttons in one action row (Discord's limit). */
const ROW_BUTTONS_MAX = 5;

/**
 * The embeds that fit one message and the Reveal buttons of exactly those cards: `fitEmbeds` may drop
 * cards from the end, and a button must not reveal an image whose card is not there. Five buttons a row
 * (in a spoiler channel every pictured card has one, and Show card holds ten), one button per image
 * (custom ids must differ: two cards of one image share it).
 */
export function unfurlReplyBody(cards: readonly UnfurlCard[]): UnfurlReplyBody {
  const embeds = fitEmbeds(cards.map((card) => card.embed));
  const seen = new Set<string>();
  const reveal = cards.slice(0, embeds.length).flatMap((card) => {
    const button = card.reveal;
    if (button === undefined || !('custom_id' in button) || seen.has(button.custom_id)) return [];
    seen.add(button.custom_id);
    return [button];
  });
  const rows: ActionRow[] = [];
  for (let i = 0; i < reveal.length; i += ROW_BUTTONS_MAX) {
    rows.push(buttonRow(reveal.slice(i, i + ROW_BUTTONS_MAX)));
  }
  return { embeds, components: rows, dropped: cards.length - embeds.length };
}

/**
 * What became of one recognised link: a card with its picture (`shown`), a card without it for the
 * channel's rating rule, a deleted, merged or unprocessed image (`gated`), a card behind a spoiler
 * (`spoilered`), or no card (`skipped`: past the cap or the place's budget, no room, a failed fetch, or
 * this server's settings could not be read).
 */
export type UnfurlDecision = 'shown' | 'gated' | 'spoilered' | 'skipped';

function decisionOf(gate: Gate): UnfurlDecision {
  if (gate === 'full') return 'shown';
  return gate === 'spoilered' ? 'spoilered' : 'gated';
}

/** What a message links to: an image (a link or `>>123`), or a board page (a tag, a search). */
export type Target =
  { readonly kind: 'image'; readonly link: ImageLink } | { readonly kind: 'page'; readonly link: PageLink };

/** `targets` in the order written, each once (images already deduplicated by their recogniser). */
function targetsOf(images: readonly ImageLink[], pages: readonly PageLink[]): Target[] {
  // A comment link is an image link too: the comment's card (with its image) stands for it.
  const comments = new Set(pages.filter((page) => page.kind === 'comment').map((page) => page.index));
  return [
    ...images.filter((link) => !comments.has(link.index)).map((link): Target => ({ kind: 'image', link })),
    ...pages.map((link): Target => ({ kind: 'page', link })),
  ].sort((a, b) => a.link.index - b.link.index);
}

interface TargetCard {
  readonly card?: UnfurlCard;
  /** A second card that goes with the first (a comment's image). */
  readonly extra?: UnfurlCard;
  readonly gate?: Gate;
  readonly line?: string;
}

/**
 * The button under a card: Reveal where it can be revealed, Why? where a rule hides it (naming the image
 * when one reply holds several cards), else none.
 */
function cardButton(
  card: { readonly revealable: boolean; readonly gate: Gate },
  site: Site,
  imageId: number,
  many: boolean,
  say: Say,
): APIButtonComponent | undefined {
  // The id as written (never with separators): it names the image, it does not count anything.
  const id = String(imageId);
  if (card.revealable) {
    return revealButton(site, imageId, many ? say('unfurl.reveal.numbered', { id }) : say('unfurl.reveal'));
  }
  if (card.gate === 'rule-hidden') {
    return whyButton(site, imageId, many ? say('unfurl.why.numbered', { id }) : say('unfurl.why'));
  }
  return undefined;
}

async function cardOf(
  target: Target,
  view: View,
  registry: ClientRegistry,
  logger: Logger,
  many: boolean,
): Promise<TargetCard> {
  const { link } = target;
  // The view's language: the member's for Show card, the channel's or the server's for an unfurl.
  const say = sayIn(view.locale);
  const client = registry.client(link.site);
  const here = view.forSite(link.site);
  if (target.kind === 'image') {
    const { card, fetched } = await showImage(client, target.link.imageId, here, logger);
    const id = fetched.image.id;
    return {
      card: {
        embed: card.embed,
        reveal: cardButton(card, link.site, id, many, say),
        image: { card, site: link.site, imageId: id },
      },
      gate: card.gate,
    };
  }
  const page = target.link;
  switch (page.kind) {
    case 'tag':
      return { card: { embed: await tagCardEmbed(client, page.slug, here, logger) } };
    case 'topic':
      return { card: { embed: await topicCard(client, page, here) } };
    case 'profile':
      return { card: { embed: await profileCard(client, page.slug, here) } };
    case 'gallery': {
      const found = await galleryCards(client, page.galleryId, here, logger);
      const cover = found.cover;
      const reveal =
        cover === undefined ? undefined : cardButton(cover.card, link.site, cover.imageId, many, say);
      return {
        card: { embed: found.embed, reveal },
        ...(cover === undefined ? {} : { extra: { embed: cover.card.embed }, gate: cover.card.gate }),
      };
    }
    case 'comment': {
      const found = await commentCards(client, page.commentId, here, logger);
      const reveal = cardButton(found.image, link.site, found.imageId, many, say);
      return {
        card: { embed: found.embeds[0] ?? found.image.embed, reveal },
        extra: { embed: found.image.embed },
        gate: found.image.gate,
      };
    }
    case 'search': {
      const found = await searchCard(client, page.query, here, logger);
      if (found.card === undefined || found.imageId === undefined) return { line: found.line };
      const reveal = cardButton(found.card, link.site, found.imageId, many, say);
      return { card: { embed: found.card.embed, reveal }, gate: found.card.gate, line: found.line };
    }
  }
}

/**
 * The cards of `targets` for `view` (each on its own site), in order, with the lines that go above them
 * (a search's total and link); targets that could not be read are counted and logged as `<what> failed`.
 */
export async function cardsForTargets(
  targets: readonly Target[],
  view: View,
  registry: ClientRegistry,
  logger: Logger,
  what = 'unfurl',
): Promise<{ cards: UnfurlCard[]; gates: Gate[]; lines: string[]; failed: number }> {
  const results = await Promise.allSettled(
    targets.map((target) => cardOf(target, view, registry, logger, targets.length > 1)),
  );
  const cards: UnfurlCard[] = [];
  const gates: Gate[] = [];
  const lines: string[] = [];
  let failed = 0;
  for (const [i, result] of results.entries()) {
    if (result.status === 'rejected') {
      failed += 1;
      logger.info({ err: result.reason, site: targets[i]?.link.site.id }, `${what} failed`);
      continue;
    }
    const { card, extra, gate, line } = result.value;
    if (card !== undefined) cards.push(card);
    if (extra !== undefined) cards.push(extra);
    if (gate !== undefined) gates.push(gate);
    if (line !== undefined) lines.push(line);
  }
  return { cards, gates, lines, failed };
}

/**
 * The text of a message whose links count: its own, and that of the messages it forwards (a forward
 * has no text of its own; the original is in its snapshots).
 */
export function linkText(message: Pick<Message, 'content' | 'messageSnapshots'>): string {
  const forwarded = [...(message.messageSnapshots?.values() ?? [])].map((snapshot) => snapshot.content ?? '');
  return [message.content, ...forwarded].filter((text) => text !== '').join('\n');
}

/** The message's text: the searches' lines, then how many links were left out (in `say`'s language). */
export function contentOf(
  lines: readonly string[],
  more: number,
  say: Say = sayEnglish,
): { content?: string } {
  const all = [...lines, ...(more > 0 ? [say('unfurl.more-links', { count: more })] : [])];
  return all.length === 0 ? {} : { content: truncate(all.join('\n'), MESSAGE_CONTENT_MAX) };
}

/**
 * What `text` links to, with what was fenced off (code, `<...>`, spoilers) left alone: image links, board
 * pages, and `>>123` references on `referenceSite` (none when it is undefined), in the order written.
 */
export function linkTargets(text: string, sites: SiteDirectory, referenceSite: Site | undefined): Target[] {
  const hasUrl = text.includes('://');
  const hasReference = referenceSite !== undefined && text.includes('>>');
  if (!hasUrl && !hasReference) return [];
  const masked = maskSuppressedText(text);
  const images = hasUrl ? sites.recogniseLinks(masked) : [];
  const references = hasReference ? imageReferences(masked, referenceSite) : [];
  const pages = hasUrl ? sites.recognisePages(masked) : [];
  return targetsOf(references.length === 0 ? images : mergeLinks(images, references), pages);
}

/** A `>>123` reference (its link text is the reference itself, not a URL). */
function isReference(target: Target): boolean {
  return target.kind === 'image' && target.link.url.startsWith('>>');
}

export interface UnfurlDeps {
  readonly sites: SiteDirectory;
  readonly registry: ClientRegistry;
  readonly settings: GuildSettings;
  readonly logger: Logger;
  /** Cards per server (or DM channel); undefined means no limit. */
  readonly rateLimit?: RateLimit | undefined;
  readonly now?: () => number;
  /** Told what became of each recognised link (metrics); must not throw. */
  readonly onDecision?: (decision: UnfurlDecision, count: number) => void;
  /**
   * Members' own settings (`/me`): an author who turned unfurling off gets nothing; in DMs the author's
   * own filter applies. Rejects when they cannot be read (the unfurl is then skipped).
   */
  readonly members?: {
    get(userId: string): Promise<{
      readonly unfurl: boolean;
      readonly filters: Readonly<Record<string, number>>;
      readonly hiddenTags?: readonly string[];
    }>;
  };
  /** Told of each image a rule in layers hid or spoilered (metrics). */
  readonly observe?: ContentRules['observe'];
}

/**
 * The unfurler as a message handler: it reads the message and returns the reply to send (the runtime
 * sends it, pinging nobody, and hides the message's own previews where it may), or nothing.
 */
export function createUnfurlHandler(deps: UnfurlDeps): MessageHandler {
  const budget =
    deps.rateLimit === undefined
      ? undefined
      : createKeyedLimiter({
          limit: deps.rateLimit.limit,
          windowMs: deps.rateLimit.windowMs,
          ...(deps.now === undefined ? {} : { now: deps.now }),
        });

  /** The links to show: at most UNFURL_MAX_CARDS, each taking one card of the place's budget. */
  function linksToShow(links: readonly Target[], place: string, logger: Logger): Target[] {
    const capped = links.slice(0, UNFURL_MAX_CARDS);
    if (budget === undefined) return capped;
    const shown: Target[] = [];
    for (const link of capped) {
      const taken = budget.take(place);
      if (!taken.ok) {
        logger.debug(
          { skipped: capped.length - shown.length, retryAfterMs: taken.retryAfterMs },
          'unfurl budget of this place used up; links skipped',
        );
        break;
      }
      shown.push(link);
    }
    return shown;
  }

  function decided(decision: UnfurlDecision, count = 1): void {
    if (count <= 0 || deps.onDecision === undefined) return;
    try {
      deps.onDecision(decision, count);
    } catch {
      // Figures only.
    }
  }

  async function unfurl(message: Message, place: MessagePlace): Promise<MessageAnswer | undefined> {
    if (message.author.bot || message.webhookId !== null || message.system) return undefined;
    const text = linkText(message);
    // References are looked for on the default site first: the server's site, its switches and the
    // author's choice (store reads) are needed only when the message has a link or a reference at all.
    let links = linkTargets(text, deps.sites, deps.sites.defaultSite);
    if (links.length === 0) return undefined;
    const logger = deps.logger.child({ messageId: message.id, guildId: message.guildId, unfurl: true });
    let memberFilters: Readonly<Record<string, number>> | undefined;
    let memberHidden: readonly string[] = [];
    if (deps.members !== undefined) {
      try {
        const author = await deps.members.get(message.author.id);
        if (!author.unfurl) {
          decided('skipped', links.length);
          return undefined;
        }
        memberFilters = author.filters;
        memberHidden = author.hiddenTags ?? [];
      } catch (error) {
        // Fail closed: the author may have asked not to be unfurled.
        logger.warn({ err: error }, "unfurl skipped: the author's own settings could not be read");
        decided('skipped', links.length);
        return undefined;
      }
    }
    let view: View;
    try {
      // In a DM no server decides and nobody else reads the reply: the author's own filter and hidden
      // tags apply. In a server they do not: the reply is for everyone in the channel, and the author can
      // turn their unfurls off instead.
      const own =
        message.guildId === null && memberFilters !== undefined ? { memberFilters, memberHidden } : {};
      view = await resolveView(
        {
          guildId: message.guildId,
          channel: place.channel,
          guildLocale: place.guildLocale,
          ...own,
        },
        {
          settings: deps.settings,
          sites: deps.sites,
          ...(deps.observe === undefined ? {} : { observe: deps.observe }),
        },
      );
    } catch (error) {
      // A failed settings read means no card at all: with the defaults, a card could show what the
      // server's filter or rules hide. Nothing is replied (silence beats an error reply in chat).
      logger.warn({ err: error }, "unfurl skipped: this server's settings could not be read");
      decided('skipped', links.length);
      return undefined;
    }
    if (links.some(isReference)) {
      links = linkTargets(text, deps.sites, view.imageReferences ? view.site : undefined);
    }
    // A channel with unfurls off keeps only its `>>123` references (a switch of their own).
    if (!view.unfurl) {
      const kept = links.filter(isReference);
      decided('skipped', links.length - kept.length);
      links = kept;
    }
    if (links.length === 0) return undefined;
    const shown = linksToShow(links, message.guildId ?? `dm:${message.channelId}`, logger);
    decided('skipped', links.length - shown.length);
    if (shown.length === 0) return undefined;
    try {
      const { cards, gates, lines, failed } = await cardsForTargets(shown, view, deps.registry, logger);
      decided('skipped', failed);
      if (cards.length === 0 && lines.length === 0) return undefined;
      const single = singleImageBody(cards, lines, links.length - shown.length);
      if (single !== undefined) {
        for (const gate of gates) decided(decisionOf(gate));
        return { body: single, hidePreviews: true };
      }
      const body = unfurlReplyBody(cards);
      for (const [i, gate] of gates.entries()) decided(i < body.embeds.length ? decisionOf(gate) : 'skipped');
      if (body.dropped > 0) logger.info({ dropped: body.dropped }, 'unfurl cards dropped for room');
      // Links past the cap or the place's budget, and cards the message had no room for.
      const more = links.length - shown.length + body.dropped;
      return {
        body: {
          ...contentOf(lines, more, sayIn(view.locale)),
          embeds: body.embeds,
          components: body.components,
        },
        // Discord's own preview of a board page shows the picture whatever its rating: hide it.
        hidePreviews: true,
      };
    } catch (error) {
      decided('skipped', shown.length);
      logger.warn({ err: error }, 'unfurl failed');
      return undefined;
    }
  }

  return { name: 'unfurl', handle: unfurl };
}
