/**
 * Reverse search (for /reverse and "Find source"): the board's matches, nearest first, stored under a
 * token; one credited, gated card per page with Previous / Next, paged by the member who asked.
 */
import { ButtonStyle, ComponentType, type APIButtonComponent } from 'discord.js';
import { z } from 'zod';
import { BOARD_UPLOAD_MAX_BYTES } from '../../src/philomena/client/index.js';
import type { ReverseSearchInput } from '../../src/philomena/client/types.js';
import { messageReply, type Reply } from '../../src/discord/contract.js';
import type { ButtonHandler, CommandContext } from '../shared/context.js';
import { boardFor } from '../shared/member-board.js';
import type { TextPage } from '../shared/text-search.js';
import { buttonCodec, encodeTime, segment, siteCode } from '../../src/discord/custom-id.js';
import {
  buttonRow,
  cardMessage,
  formOfMessage,
  showImage,
  type ActionRow,
  type CardForm,
} from '../shared/show-image.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { sayIn, type Say } from '../shared/say.js';
import { UserFacingError } from '../../src/discord/failures.js';

const REVERSE_NS = 'rev';
const STATE_KIND = 'reverse';
/** The matches behind a token, and who asked (checked on every click, not only via the custom_id). */
const stateSchema = z.object({
  ids: z.array(z.number().int().nonnegative()).min(1),
  owner: z.string().min(1),
});
/**
 * The largest picture searched: Discord's attachment limit for servers without boosts (25 MB), which is
 * below the board's own upload limit (BOARD_UPLOAD_MAX_BYTES, 125 MiB). The file is streamed to the
 * board, never held whole, so the cap bounds the upload's time, not the bot's memory.
 */
export const REVERSE_MAX_BYTES = Math.min(25_000_000, BOARD_UPLOAD_MAX_BYTES);
const RESULTS_LIMIT = 10;
export const UPLOAD_TIMED_OUT_TEXT = 'Sending that picture to the site took too long. Try again.';

/** Where a member stands in the matches: a text search's page, always their own (never posted). */
type ReversePage = Omit<TextPage, 'private'>;

/** A results button's fields as its custom_id holds them (the match ids are in the store). */
const reverseButton = buttonCodec<'prev' | 'next', ReverseButtonFields>({
  namespace: REVERSE_NS,
  schema: z
    .tuple([segment.siteCode, segment.token, segment.count, segment.count, segment.snowflake, segment.time])
    .transform(([site, token, page, total, owner, issuedAt]) => ({
      site,
      token,
      page,
      total,
      owner,
      issuedAt,
    })),
  write: (state) => [
    state.site,
    state.token,
    state.page,
    state.total,
    state.owner,
    encodeTime(state.issuedAt),
  ],
});

/** The custom_id fields of a page: its site as a code. */
type ReverseButtonFields = Omit<ReversePage, 'site'> & { readonly site: string };

function encodeButton(action: 'prev' | 'next', state: ReversePage): string {
  return reverseButton.encode(action, { ...state, site: siteCode(state.site) });
}

function navRow(state: ReversePage, say: Say): ActionRow[] {
  if (state.total <= 1) return [];
  const button = (action: 'prev' | 'next', label: string, disabled: boolean): APIButtonComponent => ({
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label,
    custom_id: encodeButton(action, state),
    disabled,
  });
  return [
    buttonRow([
      button('prev', say('reverse.button.previous'), state.page <= 1),
      button('next', say('reverse.button.next'), state.page >= state.total),
    ]),
  ];
}

async function renderPage(
  ids: readonly number[],
  state: ReversePage,
  context: CommandContext,
  form?: CardForm,
) {
  const id = ids[state.page - 1];
  if (id === undefined)
    throw new UserFacingError('reverse.result-gone', 'That result is gone. Run the search again.');
  // Each result's card is read as the member asks (their own account where it decides for them); the
  // reverse search itself answers the same for everyone and stays on the shared client.
  const { client, view } = await boardFor(context, context.view.forSite(state.site));
  const say = sayIn(view.locale);
  const { fetched, card } = await showImage(client, id, view, context.logger, {
    footerExtra: say('reverse.card.position', { page: state.page, total: state.total }),
  });
  return cardMessage(card, state.site, fetched.image.id, {
    rows: navRow({ ...state, issuedAt: context.now() }, say),
    ...(form === undefined ? {} : { form }),
  });
}

/** Runs a reverse search for `member` and answers with the first match. */
export async function answerReverseSearch(
  member: string,
  input: ReverseSearchInput,
  distance: number | undefined,
  context: CommandContext,
): Promise<Reply> {
  const site = context.view.site;
  const kind = 'url' in input ? 'url' : 'file';
  const results = await context.reverseGate
    .run(member, kind, () =>
      context.registry.client(site).reverseSearch(input, {
        limit: RESULTS_LIMIT,
        ...(distance === undefined ? {} : { distance }),
      }),
    )
    .catch((error: unknown) => {
      // An upload whose attempt timed out while the file was still coming from Discord: the transport
      // passes the source's timeout on as it is (not the site's fault, so not a SiteUnavailableError).
      if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new UserFacingError('reverse.upload-timed-out', UPLOAD_TIMED_OUT_TEXT, { cause: error });
      }
      throw error;
    });
  // Deleted images come back as stubs: they are not a source anyone can look at.
  const ids = results.items.filter((image) => image.kind === 'image').map((image) => image.id);
  if (ids.length === 0) {
    const content = sayIn(context.locale)('reverse.no-match');
    return messageReply({ content, embeds: [], components: [] });
  }
  const token = await context.state.put(STATE_KIND, { ids, owner: member });
  const state: ReversePage = {
    site,
    token,
    page: 1,
    total: ids.length,
    owner: member,
    issuedAt: context.now(),
  };
  return messageReply(await renderPage(ids, state, context));
}

export function reverseButtons(): Record<string, ButtonHandler> {
  const handler = (action: 'prev' | 'next'): ButtonHandler => ({
    defer: (interaction, args) =>
      reverseButton.decode(args)?.owner === interaction.user.id ? 'update' : 'ephemeral',
    async run(interaction, args, context) {
      const state = reverseButton.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      if (state !== undefined && state.owner !== interaction.user.id) {
        throw new UserFacingError(
          'paging.not-owner',
          'Only the person who searched can page through these results.',
        );
      }
      const stored =
        state === undefined || context.now() - state.issuedAt > STATE_TTL_MS
          ? undefined
          : await context.state.get(STATE_KIND, state.token, stateSchema);
      if (state === undefined || stored === undefined) {
        return { kind: 'expired', text: sayIn(context.locale)('reverse.expired') };
      }
      if (stored.owner !== interaction.user.id) {
        throw new UserFacingError(
          'paging.not-owner',
          'Only the person who searched can page through these results.',
        );
      }
      const page =
        action === 'prev' ? Math.max(1, state.page - 1) : Math.min(stored.ids.length, state.page + 1);
      return messageReply(
        await renderPage(
          stored.ids,
          { ...state, page, total: stored.ids.length },
          context,
          // The owner's click edits the message in place: it keeps its form.
          formOfMessage(interaction.message),
        ),
      );
    },
  });
  return { [reverseButton.key('prev')]: handler('prev'), [reverseButton.key('next')]: handler('next') };
}

/** Whether an attachment looks like something the board can match (images, and the webm it accepts). */
export function isMatchableMedia(contentType: string | null | undefined, name: string): boolean {
  if (contentType) return contentType.startsWith('image/') || contentType === 'video/webm';
  return /\.(?:png|jpe?g|gif|webp|svg|webm)$/i.test(name);
}

/** An uploaded picture (attachment) to search with. */
export interface PictureFile {
  readonly url: string;
  readonly name: string;
  readonly size: number;
  readonly contentType: string | null;
}

/** An attachment's identity without the signed, expiring query Discord adds to its URL. */
function attachmentKey(url: string): string {
  return URL.canParse(url) ? new URL(url).origin + new URL(url).pathname : url;
}

/**
 * The reverse-search input of an uploaded picture, checked (kind, size) before anything is read. The
 * download itself starts only when the board has a slot for the search, and streams through to it.
 */
export function fileInput(file: PictureFile, context: Pick<CommandContext, 'download'>): ReverseSearchInput {
  if (!isMatchableMedia(file.contentType, file.name)) {
    throw new UserFacingError('reverse.not-an-image', 'That file is not an image the site can match.');
  }
  if (file.size > REVERSE_MAX_BYTES) {
    const megabytes = REVERSE_MAX_BYTES / 1_000_000;
    throw new UserFacingError('file.too-large', `That file is too large (at most ${megabytes} MB).`, {
      params: { megabytes },
    });
  }
  return {
    upload: {
      open: (signal) => context.download(file.url, { maxBytes: REVERSE_MAX_BYTES, signal }),
      filename: file.name,
      ...(file.contentType === null ? {} : { contentType: file.contentType }),
      key: attachmentKey(file.url),
      maxBytes: REVERSE_MAX_BYTES,
    },
  };
}

/** A reverse-search distance within the board's 0..1; Discord checks the option, this guards the rest. */
export function clampDistance(distance: number | null): number | undefined {
  if (distance === null || !Number.isFinite(distance)) return undefined;
  return Math.min(1, Math.max(0, distance));
}
