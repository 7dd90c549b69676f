/**
 * Fetching an image the way every feature needs it (merges followed, the view's filter applied) and
 * turning it into a message: the image card (src/render/), a Reveal button when the card is spoilered,
 * nothing that pings.
 */
import {
  ButtonStyle,
  ComponentType,
  MessageFlags,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIComponentInMessageActionRow,
  type APIMessageTopLevelComponent,
} from 'discord.js';
import type { MessageBody } from '../../src/discord/contract.js';
import { V2_ANSWER_TEXT_MAX } from '../../src/discord/external-apps.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Image } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import type { View } from './view.js';
import { whyButton } from './why-button.js';
import { sayEnglish, sayIn, type Say } from './say.js';
import { z } from 'zod';
import { buttonCodec, segment, siteCode } from '../../src/discord/custom-id.js';
import {
  countComponents,
  fitEmbeds,
  imageCard,
  imageCardV2,
  v2TextLength,
  V2_COMPONENTS_MAX,
  V2_TEXT_MAX,
  type CardContext,
  type ImageCard,
} from '../../src/render/index.js';

/** Merge chains longer than this are treated as a loop. */
const MAX_MERGE_HOPS = 5;

/** Reveal: the picture of a spoilered card, to the clicker alone. */
export const revealCodec = buttonCodec<'reveal', { readonly site: string; readonly imageId: number }>({
  namespace: 'img',
  schema: z.tuple([segment.siteCode, segment.imageId]).transform(([site, imageId]) => ({ site, imageId })),
  write: ({ site, imageId }) => [site, imageId],
});

export interface FetchedImage {
  readonly image: Image;
  /** Ids that were merged, in the order followed (empty when the id was the image itself). */
  readonly mergedFrom: readonly number[];
}

/** The image, following `duplicate_of` of merged stubs to the target (loops and long chains stop). */
async function fetchImage(
  client: PhilomenaClient,
  id: number,
  options: { readonly filterId: number | undefined; readonly signal?: AbortSignal },
): Promise<FetchedImage> {
  const call = {
    ...(options.filterId === undefined ? {} : { filterId: options.filterId }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const seen = new Set<number>([id]);
  const mergedFrom: number[] = [];
  let image = await client.image(id, call);
  while (image.kind === 'hidden' && image.duplicate_of !== null && !seen.has(image.duplicate_of)) {
    if (mergedFrom.length >= MAX_MERGE_HOPS) break;
    mergedFrom.push(image.id);
    seen.add(image.duplicate_of);
    image = await client.image(image.duplicate_of, call);
  }
  return { image, mergedFrom };
}

/** What the card needs to know of the applied filter; undefined when none is set or it cannot be read. */
export async function filterContext(
  client: PhilomenaClient,
  filterId: number | undefined,
  logger: Logger,
): Promise<CardContext['filter']> {
  if (filterId === undefined) return undefined;
  try {
    const filter = await client.filter(filterId);
    return {
      name: filter.name,
      spoileredTagIds: filter.spoilered_tag_ids,
      hiddenTagIds: filter.hidden_tag_ids,
      hiddenComplex: filter.hidden_complex,
    };
  } catch (error) {
    // The card is still right without it: it only names which filter tags hit a spoilered image.
    logger.info({ err: error, filterId }, 'could not read the filter for the card');
    return undefined;
  }
}

/**
 * The card's context for `view`. A spoiler channel's view makes every card built with it spoiler its
 * picture (and `cardMessage` then picks the form that can), so a caller needs nothing more than the view.
 */
export function cardContext(
  view: View,
  filter: CardContext['filter'],
  extra: { readonly reveal?: boolean; readonly footerExtra?: string } = {},
): CardContext {
  return {
    site: view.site,
    ageRestricted: view.ageRestricted,
    rules: view.rules,
    say: sayIn(view.locale),
    ...(view.spoilerChannel ? { spoilerChannel: true } : {}),
    ...(filter === undefined ? {} : { filter }),
    ...(extra.reveal === undefined ? {} : { reveal: extra.reveal }),
    ...(extra.footerExtra === undefined ? {} : { footerExtra: extra.footerExtra }),
  };
}

/** The Reveal button; its label in the card's language (`card.button.reveal`), English when not given. */
export function revealButton(
  site: Site,
  imageId: number,
  label = sayEnglish('card.button.reveal'),
): APIButtonComponent {
  return {
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label,
    custom_id: revealCodec.encode('reveal', { site: siteCode(site), imageId }),
  };
}

export type ActionRow = APIActionRowComponent<APIButtonComponent>;
/** A row of buttons or one select menu. */
export type ControlRow = APIActionRowComponent<APIComponentInMessageActionRow>;

export function buttonRow(buttons: readonly APIButtonComponent[]): ActionRow {
  return { type: ComponentType.ActionRow, components: [...buttons] };
}

/**
 * How a card goes out: Components V2 (a container whose gallery shows the picture, plays a video and
 * spoilers natively) or the classic embed (one still, the video as a link).
 */
export type CardForm = 'v2' | 'embed';

/** The form of the message a button or select sits on: an edit of it must keep it (Discord keeps the flag). */
export function formOfMessage(message: { readonly flags: { has(flag: MessageFlags): boolean } }): CardForm {
  return message.flags.has(MessageFlags.IsComponentsV2) ? 'v2' : 'embed';
}

export interface CardMessageOptions {
  /** Rows after the card (paging buttons, a select). */
  readonly rows?: readonly ControlRow[];
  /** A line above the card (a merge note). */
  readonly content?: string;
  readonly revealable?: boolean;
  /**
   * The form the message must have: that of the message being edited. Left out, a new message: see
   * {@link cardMessage}.
   */
  readonly form?: CardForm;
}

/**
 * The rows of a card: the Reveal button first when the card can be revealed (the Why? button when a rule
 * hides it), then `rows`. In Components
 * V2 a spoiler channel's card shows its picture behind the native spoiler, so it needs no Reveal for
 * that (only for what the filter spoilers).
 */
function cardRows(
  card: ImageCard,
  site: Site,
  imageId: number,
  options: CardMessageOptions,
  form: CardForm,
): ControlRow[] {
  const pictured =
    form === 'v2' && card.spoilerChannel === true && card.gate === 'full' && card.media !== null;
  const reveal =
    (options.revealable ?? true) && card.revealable && !pictured
      ? [buttonRow([revealButton(site, imageId, card.say('card.button.reveal'))])]
      : [];
  // A card a rule hides is never revealable; its button says, to whoever asks, which rule.
  const why =
    card.gate === 'rule-hidden' ? [buttonRow([whyButton(site, imageId, card.say('card.button.why'))])] : [];
  return [...reveal, ...why, ...(options.rows ?? [])];
}

/** The text a Components V2 answer may use: the runtime's (it keeps room for the notes it adds). */
export { V2_ANSWER_TEXT_MAX };

/** The card as Components V2, and whether it lost nothing (every credit and source line, within limits). */
function v2Body(
  card: ImageCard,
  rows: readonly ControlRow[],
  content: string | undefined,
): { body: MessageBody; whole: boolean } {
  const note =
    content === undefined
      ? []
      : [{ type: ComponentType.TextDisplay as const, content: content.slice(0, 2000) }];
  const textMax = V2_ANSWER_TEXT_MAX - (content?.length ?? 0);
  const v2 = imageCardV2(card, { rows, textMax });
  const components: APIMessageTopLevelComponent[] = [...note, v2.container];
  const whole =
    v2.complete &&
    countComponents(components) <= V2_COMPONENTS_MAX &&
    v2TextLength(components) <= V2_TEXT_MAX;
  return { body: { componentsV2: true, components }, whole };
}

/**
 * Whether Components V2 shows more of this card than an embed: a video that plays (an embed shows a still
 * and a link), or a picture behind Discord's own spoiler (an embed can show none: a picture the filter
 * spoilers, and every picture in a spoiler channel). For a still or an animated gif both show the same
 * picture, and the embed keeps its larger text room.
 */
function v2ShowsMore(card: ImageCard): boolean {
  return card.media !== null && (card.media.kind === 'video' || card.media.spoiler);
}

/**
 * The message of one image card. The one place that chooses between Components V2 and embeds: the form
 * of the message being edited when there is one (Discord cannot take the V2 flag off, and paging keeps
 * one form); for a new message V2 where it shows more ({@link v2ShowsMore}) and holds the card whole
 * (V2 has 4,000 characters of text against an embed's 6,000), else the embed. In a spoiler channel that
 * means V2 with the picture behind Discord's spoiler; where V2 cannot hold every credit and source line,
 * the card's embed, which carries no picture there (it says so, and Reveal shows it to one member).
 */
export function cardMessage(
  card: ImageCard,
  site: Site,
  imageId: number,
  options: CardMessageOptions = {},
): MessageBody {
  if (options.form === 'v2' || (options.form === undefined && v2ShowsMore(card))) {
    const v2 = v2Body(card, cardRows(card, site, imageId, options, 'v2'), options.content);
    if (v2.whole || options.form === 'v2') return v2.body;
  }
  return {
    ...(options.content === undefined ? {} : { content: options.content }),
    embeds: fitEmbeds([card.embed]),
    components: cardRows(card, site, imageId, options, 'embed'),
  };
}

/** Text saying a link or id was merged into another image, in `say`'s language (the card's: `card.say`). */
export function mergedNote(fetched: FetchedImage, say: Say = sayEnglish): string | undefined {
  const first = fetched.mergedFrom[0];
  if (first === undefined) return undefined;
  // Ids as written, never with thousands separators: they are names, not quantities.
  return say('card.merged-note', { from: String(first), to: String(fetched.image.id) });
}

/** Everything a feature does to show one image id to a view. */
export async function showImage(
  client: PhilomenaClient,
  id: number,
  view: View,
  logger: Logger,
  extra: { readonly reveal?: boolean; readonly footerExtra?: string } = {},
): Promise<{ fetched: FetchedImage; card: ImageCard }> {
  const [fetched, filter] = await Promise.all([
    fetchImage(client, id, { filterId: view.filterId }),
    filterContext(client, view.filterId, logger),
  ]);
  return { fetched, card: imageCard(fetched.image, cardContext(view, filter, extra)) };
}
