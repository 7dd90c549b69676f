/**
 * Fetching an image the way every feature needs it (merges followed, the view's filter applied) and
 * turning it into a message: E's card, a Reveal button when the card is spoilered, nothing that pings.
 */
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
} from 'discord.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client-types.js';
import type { Image } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import type { View } from './view.js';
import { z } from 'zod';
import { buttonCodec, segment, siteCode } from '../../src/discord/custom-id.js';
import {
  fitEmbeds,
  imageCard,
  NO_MENTIONS,
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
export async function fetchImage(
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
    };
  } catch (error) {
    // The card is still right without it: it only names which filter tags hit a spoilered image.
    logger.info({ err: error, filterId }, 'could not read the filter for the card');
    return undefined;
  }
}

export function cardContext(
  view: View,
  filter: CardContext['filter'],
  extra: { readonly reveal?: boolean; readonly footerExtra?: string } = {},
): CardContext {
  return {
    site: view.site,
    ageRestricted: view.ageRestricted,
    ...(filter === undefined ? {} : { filter }),
    ...(extra.reveal === undefined ? {} : { reveal: extra.reveal }),
    ...(extra.footerExtra === undefined ? {} : { footerExtra: extra.footerExtra }),
  };
}

export function revealButton(site: Site, imageId: number, label = 'Reveal'): APIButtonComponent {
  return {
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label,
    custom_id: revealCodec.encode('reveal', { site: siteCode(site), imageId }),
  };
}

export type ActionRow = APIActionRowComponent<APIButtonComponent>;

export function buttonRow(buttons: readonly APIButtonComponent[]): ActionRow {
  return { type: ComponentType.ActionRow, components: [...buttons] };
}

export interface CardMessage {
  readonly content?: string;
  readonly embeds: APIEmbed[];
  readonly components: ActionRow[];
  readonly allowedMentions: typeof NO_MENTIONS;
}

/** The message of a card: the Reveal button first when the card can be revealed, then `rows`. */
export function cardMessage(
  card: ImageCard,
  site: Site,
  imageId: number,
  options: {
    readonly rows?: readonly ActionRow[];
    readonly content?: string;
    readonly revealable?: boolean;
  } = {},
): CardMessage {
  const reveal =
    (options.revealable ?? true) && card.revealable ? [buttonRow([revealButton(site, imageId)])] : [];
  return {
    ...(options.content === undefined ? {} : { content: options.content }),
    embeds: fitEmbeds([card.embed]),
    components: [...reveal, ...(options.rows ?? [])],
    allowedMentions: NO_MENTIONS,
  };
}

/** Text saying a link or id was merged into another image. */
export function mergedNote(fetched: FetchedImage): string | undefined {
  const first = fetched.mergedFrom[0];
  if (first === undefined) return undefined;
  return `Image ${first} was merged into image ${fetched.image.id}.`;
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
