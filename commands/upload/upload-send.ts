/**
 * One upload, from the checks to the answer, shared by `/upload` and the "Upload to board" menu (issue 22
 * §2). The checks come in the order a member reads them, each one short sentence and none sending anything:
 * uploads off for the site, linking off or no linked key, what they typed (upload-input.ts), then the caps
 * (upload-caps.ts). Then ONE `POST /images` with the member's own key through
 * `registry.memberClient(site, { id, key })`, never retried (a retry could upload twice), and the answer:
 *
 * - accepted: the new image's card through the card code (credit, sources, the rating rule of the channel
 *   the answer shows in, the view's filter and rules), or, when it cannot be fetched yet (new uploads are
 *   listed before their thumbnails exist), a line with its link;
 * - refused: the board's errors as sentences (upload-refusal.ts);
 * - the key refused (401, 403): the key is dropped with the answers fetched with it, and said once;
 * - a time-out or a fault of the board: the upload may or may not have landed, so the member checks before
 *   trying again (the bot never does on its own).
 *
 * Only a request actually sent counts against the caps: a refusal of the bot's own politeness (the breaker,
 * a pause the board asked for, a full budget queue) happens before any byte leaves, and takes the place back.
 */
import { messageReply, type Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import {
  BadQueryError,
  ForbiddenError,
  InvalidResponseError,
  MemberKeyRefusedError,
  NotFoundError,
  RateLimitedError,
  SiteUnavailableError,
} from '../../src/errors.js';
import type { SubmitImageResult } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { imagePageUrl } from '../../src/philomena/urls.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { MemberKey } from '../shared/key-sealing.js';
import type { CommandContext } from '../shared/context.js';
import { sayIn, type Say } from '../shared/say.js';
import { dropKey } from '../shared/member-board.js';
import { cardMessage, showImage } from '../shared/show-image.js';
import { textReply } from '../shared/text-reply.js';
import { UploadStoreError, type CapRefusal, type UploadCaps } from './upload-caps.js';
import { checkUpload, type TypedUpload, type UploadInput } from './upload-input.js';
import { refusalLines } from './upload-refusal.js';
import type { UploadSites } from '../../src/upload-config.js';

/** What the upload commands are given (commands/index.ts): where uploads are on, and the caps. */
export interface UploadFeature {
  readonly sites: UploadSites;
  readonly caps: UploadCaps;
}

const siteName = (site: Site) => escapeMarkdown(site.name);

/** Whether uploads are on for `site` (UPLOADS). */
function uploadsOn(feature: UploadFeature, site: Site): boolean {
  return feature.sites === 'all' || feature.sites.includes(site.id);
}

/** The checks before the member types anything: uploads on, their key. Throws the first refusal. */
export async function memberKeyForUpload(
  userId: string,
  site: Site,
  context: CommandContext,
  feature: UploadFeature,
): Promise<MemberKey> {
  if (!uploadsOn(feature, site)) {
    throw new UserFacingError('upload.off', `Uploads to ${siteName(site)} are not turned on for this bot.`, {
      params: { site: siteName(site) },
    });
  }
  if (!context.memberKeys.linking) {
    throw new UserFacingError(
      'upload.link-off',
      'Uploads go with your own board account, and linking one is not turned on for this bot.',
    );
  }
  const key = await context.memberKeys.keyFor(userId, site.id);
  if (key === undefined) {
    throw new UserFacingError(
      'upload.link-needed',
      `Uploads go with your own ${siteName(site)} account: link it first with \`/me link\`. Nothing was sent.`,
      { params: { site: siteName(site) } },
    );
  }
  return key;
}

/** Minutes in English, as the catalogue's plural says them. */
const minutesText = (minutes: number) => (minutes === 1 ? '1 minute' : `${minutes} minutes`);

/** Minutes as members read a wait: whole, at least one. */
const minutesOf = (ms: number) => Math.max(1, Math.ceil(ms / 60_000));

/** A cap's refusal as the member reads it. */
export function capError(refusal: CapRefusal, site: Site): UserFacingError {
  switch (refusal.reason) {
    case 'busy':
      return new UserFacingError('upload.busy', 'Your last upload is still on its way: wait for its answer.');
    case 'member': {
      const minutes = minutesOf(refusal.waitMs);
      return new UserFacingError(
        'upload.member-cap',
        `You have uploaded as much as one member may in an hour. Try again in ${minutesText(minutes)}.`,
        { params: { minutes } },
      );
    }
    case 'site': {
      const minutes = minutesOf(refusal.waitMs);
      return new UserFacingError(
        'upload.site-cap',
        `The bot has sent as many uploads to ${siteName(site)} as it may in an hour. Try again in ${minutesText(minutes)}.`,
        { params: { site: siteName(site), minutes } },
      );
    }
  }
}

/** The caps' own store failing: nothing was sent. */
function storeFailed(cause: unknown): UserFacingError {
  return new UserFacingError(
    'upload.store-failed',
    'Could not check your upload limits right now, so nothing was sent. Try again in a moment.',
    { cause },
  );
}

/**
 * Whether `error` came before the request left: the bot's own breaker, a pause the board asked for earlier,
 * a full budget queue (none has a status: no answer was read), or a parameter refused by the library.
 */
function neverSent(error: unknown): boolean {
  if (error instanceof RangeError || error instanceof TypeError) return true;
  if (error instanceof SiteUnavailableError) {
    return error.reason === 'circuit-open' || error.reason === 'budget-exhausted';
  }
  return error instanceof RateLimitedError && error.status === undefined;
}

/** A time-out, a dropped connection, a 5xx or an unreadable answer: the upload may have landed. */
function uncertain(error: unknown): boolean {
  if (error instanceof InvalidResponseError) return true;
  return (
    error instanceof SiteUnavailableError &&
    (error.reason === 'timeout' || error.reason === 'network' || error.reason === 'server-error')
  );
}

/** Drops the member's key for `site` and what was fetched with it; the error that says so. */
async function dropUploadKey(site: Site, userId: string, context: CommandContext): Promise<UserFacingError> {
  await dropKey(site, userId, context);
  return new UserFacingError(
    'upload.key-refused',
    `${siteName(site)} no longer accepts your linked key, so the bot deleted it and nothing was uploaded. Link your account again with \`/me link\`.`,
    { params: { site: siteName(site) } },
  );
}

/** The POST, once; the caps' place taken first and given back when nothing was sent. */
async function submitOnce(
  userId: string,
  site: Site,
  key: MemberKey,
  input: UploadInput,
  context: CommandContext,
  feature: UploadFeature,
): Promise<SubmitImageResult> {
  let reserved: Awaited<ReturnType<UploadCaps['reserve']>>;
  try {
    reserved = await feature.caps.reserve(userId, site.id);
  } catch (error) {
    if (error instanceof UploadStoreError) throw storeFailed(error);
    throw error;
  }
  if (!reserved.ok) throw capError(reserved.refusal, site);
  let sent = true;
  try {
    // The key's one trip: to its own site, on its own member's request.
    return await context.registry.memberClient(site, { id: userId, key: key.reveal() }).submitImage(input);
  } catch (error) {
    sent = !neverSent(error);
    if (error instanceof MemberKeyRefusedError) throw await dropUploadKey(site, userId, context);
    // Any other refusal of the request itself (a board without the upload route, an odd 4xx) is not a
    // search the board did not understand: said as an upload refused, without the board's own text.
    if (error instanceof BadQueryError || error instanceof NotFoundError || error instanceof ForbiddenError) {
      throw new UserFacingError(
        'upload.board-refused',
        `${siteName(site)} refused the upload without saying why, so nothing was uploaded.`,
        { params: { site: siteName(site) }, cause: error },
      );
    }
    if (uncertain(error)) {
      throw new UserFacingError(
        'upload.uncertain',
        `${siteName(site)} did not answer in time, so the upload may or may not have landed. Check your uploads there (\`/search query:my:uploads\`) before trying again.`,
        { params: { site: siteName(site) }, cause: error },
      );
    }
    throw error;
  } finally {
    await feature.caps.finish(reserved.ticket, sent).catch((error: unknown) => {
      context.logger.warn({ err: error, userId }, 'the upload caps could not be updated after an upload');
    });
  }
}

/** The new image's card, or its link when the card cannot be fetched yet. */
async function accepted(imageId: number, site: Site, context: CommandContext, say: Say): Promise<Reply> {
  const link = `<${imagePageUrl(site, imageId)}>`;
  try {
    const { fetched, card } = await showImage(
      context.registry.client(site),
      imageId,
      // The site uploaded to may not be the view's own (a form opened before the server changed site).
      context.view.forSite(site),
      context.logger,
    );
    return messageReply(
      cardMessage(card, site, fetched.image.id, {
        content: say('upload.done', { site: siteName(site), url: link }),
      }),
    );
  } catch (error) {
    context.logger.info({ err: error, imageId }, 'a new upload could not be shown as a card yet');
    return textReply(say('upload.done-link', { site: siteName(site), url: link }));
  }
}

/** Everything after the member pressed send: the checks in order, the one POST, the answer. */
export async function upload(
  userId: string,
  site: Site,
  typed: TypedUpload,
  context: CommandContext,
  feature: UploadFeature,
): Promise<Reply> {
  const key = await memberKeyForUpload(userId, site, context, feature);
  const input = checkUpload(typed, site);
  const result = await submitOnce(userId, site, key, input, context, feature);
  const say = sayIn(context.locale);
  if (result.ok) return accepted(result.image.id, site, context, say);
  return textReply(
    [
      say('upload.refused.intro', { site: siteName(site) }),
      ...refusalLines(result, site, say).map((line) => `- ${line}`),
    ].join('\n'),
  );
}
