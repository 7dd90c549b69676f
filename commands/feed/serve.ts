/**
 * Posting one feed's share of a group's search: the images above its own cursor, oldest first, each once.
 *
 * Before every post the channel and the server's settings are read again: a channel that stopped (or
 * started) being age-restricted, or a server filter changed, ends the feed's round there, before the image
 * is posted and before its cursor moves, and the next round searches and renders for the channel as it now
 * is. A channel that is gone, or that Discord no longer shows the bot, pauses the feed.
 *
 * Outside age-restricted channels an image goes out only once it is `settleMs` old (FEED_SETTLE: new
 * uploads are often re-rated within minutes, and a card cannot be recalled) and after it is read fresh from
 * the board: one re-rated meanwhile, or deleted, is not posted there.
 */
import { createHash } from 'node:crypto';
import {
  ChannelForbiddenError,
  type ChannelFacts,
  type ChannelPoster,
} from '../../src/discord/channel-poster.js';
import type { MessageBody } from '../../src/discord/contract.js';
import type { Logger } from '../../src/logger.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import {
  escapeInline,
  imageCard,
  MESSAGE_CONTENT_MAX,
  truncate,
  type CardContext,
} from '../../src/render/index.js';
import { hidingRule, type ContentRules } from '../../src/render/content-rules.js';
import type { GuildSettings, GuildSettingsRecord } from '../shared/guild-settings.js';
import { isAgeRestrictedChannel, isSpoilerChannel, mayShow } from '../shared/safety.js';
import { cardContext, cardMessage } from '../shared/show-image.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { filterIn, languageIn, layersOf, makeView, viewLocale } from '../shared/view.js';
import { sayIn, type Say } from '../shared/say.js';
import type { Band } from './bands.js';
import type { Feed, FeedStore, PauseCause, PauseReason } from './feed-store.js';

/** How long an image still processing holds its feed back before it goes out with the processing card. */
const PROCESSING_WAIT_MS = 10 * 60_000;

/** A feed due this round, with what its channel was when the round chose its search. */
export interface Due {
  readonly feed: Feed;
  readonly site: Site;
  readonly filterId: number | undefined;
  readonly ageRestricted: boolean;
  /** The query as sent to the board (`(<query>), safe` outside age-restricted channels). */
  readonly sent: string;
}

/** What every feed of one group shares in one round. */
export interface GroupRound {
  readonly client: PhilomenaClient;
  readonly filter: CardContext['filter'];
  /**
   * The image as the board has it now (read once per round for the whole group): 'gone' when it is no
   * longer an image one may see (deleted, merged, hidden), 'failed' when it could not be read.
   */
  fresh(id: number): Promise<VisibleImage | 'gone' | 'failed'>;
  /** The newest match of the group's query (for a "more" line past the page). */
  newest(): Promise<number | undefined>;
}

export interface FeedServerDeps {
  readonly feeds: FeedStore;
  readonly settings: GuildSettings;
  readonly sites: SiteDirectory;
  readonly logger: Logger;
  readonly now: () => number;
  readonly maxPerPoll: number;
  readonly settleMs: number;
  readonly poster: () => ChannelPoster;
  /** Waits for the next post slot (the process's pacing). */
  readonly paced: () => Promise<void>;
  readonly stopping: () => boolean;
  /** Pauses a feed: `detail` for the log, `cause` for the admin (feed-store.ts `FeedPause`). */
  readonly pause: (feed: Feed, reason: PauseReason, detail: string, cause?: PauseCause) => Promise<void>;
  /** A channel read that failed for another reason: the poller leaves the channel alone for a while. */
  readonly readFailed: (channelId: string) => void;
  /** Told of each image a rule in layers hid or spoilered (metrics). */
  readonly observe?: ContentRules['observe'];
}

/** Discord nonces are at most 25 characters: a prefix and 24 of a hash. */
function nonceOf(kind: 'i' | 'm', feedId: string, id: number): string {
  return kind + createHash('sha256').update(`${feedId}:${id}`).digest('base64url').slice(0, 24);
}

function searchLink(site: Site, sent: string): string {
  return `${site.baseUrl}/search?q=${encodeURIComponent(sent)}&sf=id&sd=desc`;
}

/**
 * The line that counts what a round did not post. The link goes in `<...>` (Discord's own preview of a
 * board page is not the bot's to show) and only whole: where it would not fit Discord's 2,000 characters
 * the line goes without it.
 */
function moreLine(site: Site, query: string, sent: string, skipped: number, say: Say): string {
  const text = say('feedpost.more', {
    count: skipped,
    query: escapeInline(truncate(query, 200)).replace(/`/g, "'"),
  });
  const linked = `${text}: <${searchLink(site, sent)}>`;
  return linked.length <= MESSAGE_CONTENT_MAX ? linked : truncate(text, MESSAGE_CONTENT_MAX);
}

/** What the channel and the server are like now, for one post; 'end' when the round must stop here. */
type Facts =
  | {
      readonly ok: true;
      readonly spoilerChannel: boolean;
      readonly record: GuildSettingsRecord;
      /** The channel whose own settings apply: the feed's, or its thread's parent. */
      readonly settingsChannel: string;
    }
  | { readonly ok: false };

export function createFeedServer(deps: FeedServerDeps) {
  const { feeds, settings, sites, logger, now, maxPerPoll, settleMs } = deps;

  /** Reads the channel and the server's settings; pauses the feed or ends its round when they changed. */
  async function factsNow(item: Due, stored: Feed): Promise<Facts> {
    let channel: ChannelFacts | null;
    try {
      channel = await deps.poster().channel(stored.channelId, stored.guildId);
    } catch (error) {
      if (error instanceof ChannelForbiddenError) {
        await deps.pause(
          stored,
          'forbidden',
          'the bot can no longer see the channel or its server',
          'cannot-see',
        );
      } else {
        deps.readFailed(stored.channelId);
        logger.info({ err: error, channelId: stored.channelId }, 'feed channel could not be read; later');
      }
      return { ok: false };
    }
    if (channel === null) {
      await deps.pause(stored, 'channel-missing', 'the channel was deleted');
      return { ok: false };
    }
    const ageRestricted = isAgeRestrictedChannel(channel);
    if (ageRestricted !== item.ageRestricted) {
      // The next round searches and renders for the channel as it is; remembered for other processes.
      await feeds.update(stored.guildId, stored.id, (current) => ({ ...current, ageRestricted }));
      return { ok: false };
    }
    // A thread follows its parent channel's own settings (filter, tags). The poller groups by the parent
    // it knows: one it did not know yet is remembered for it, and this post goes on with the parent's
    // rules (a filter of the parent's own ends the round below, and the next one groups right).
    const parentId = channel.parentId ?? undefined;
    if (parentId !== stored.parentId) {
      await feeds.update(stored.guildId, stored.id, (current) => ({ ...current, parentId }));
    }
    const settingsChannel = parentId ?? stored.channelId;
    const record = await settings.get(stored.guildId);
    if (filterIn(record, settingsChannel, item.site, sites) !== item.filterId) return { ok: false };
    return { ok: true, spoilerChannel: isSpoilerChannel(channel), record, settingsChannel };
  }

  /** Discord's preferred locale of the server now; null when the poster cannot tell (English then). */
  async function guildLocaleOf(guildId: string): Promise<string | null> {
    const poster = deps.poster();
    if (poster.guildLocale === undefined) return null;
    try {
      return await poster.guildLocale(guildId);
    } catch (error) {
      logger.debug({ err: error, guildId }, "the server's preferred locale could not be read; English");
      return null;
    }
  }

  /** The language of a feed's "more" line: its posts' (the channel's, the server's, Discord's). */
  async function moreLocale(stored: Feed, guildLocale: string | null): Promise<string | undefined> {
    const record = await settings.get(stored.guildId);
    return viewLocale({ language: languageIn(record, stored.parentId ?? stored.channelId), guildLocale })
      .locale;
  }

  function settled(image: VisibleImage, at: number, ageRestricted: boolean): boolean {
    if (ageRestricted || settleMs <= 0) return true;
    return at - Date.parse(image.created_at) >= settleMs;
  }

  /** Posts one image; resolves with whether it went out, or 'end' when the round must stop. */
  async function postOne(
    item: Due,
    stored: Feed,
    found: VisibleImage,
    round: GroupRound,
    guildLocale: string | null,
  ): Promise<'posted' | 'skipped' | 'end'> {
    let image = found;
    if (!item.ageRestricted) {
      // Read again just before posting: a rating corrected since the search counts, not the old one.
      const fresh = await round.fresh(image.id);
      // Not read: the round ends before it, and the next one tries again (nothing is skipped).
      if (fresh === 'failed') return 'end';
      if (fresh === 'gone' || !mayShow(fresh, item.ageRestricted, { hidden: sites.floorFor(item.site) })) {
        logger.debug(
          { feedId: stored.id, imageId: image.id },
          'feed image no longer safe or gone; not posted',
        );
        return 'skipped';
      }
      image = fresh;
    }
    await deps.paced();
    if (deps.stopping()) return 'end';
    const facts = await factsNow(item, stored);
    if (!facts.ok) return 'end';
    const view = makeView({
      site: item.site,
      guildId: stored.guildId,
      ageRestricted: item.ageRestricted,
      spoilerChannel: facts.spoilerChannel,
      guildFilters: facts.record.filters,
      sites,
      // What nobody asked for: the channel's or the server's language, else Discord's for the server.
      ...viewLocale({ language: languageIn(facts.record, facts.settingsChannel), guildLocale }),
      layers: {
        ...layersOf(facts.record, facts.settingsChannel),
        ...(deps.observe === undefined ? {} : { observe: deps.observe }),
      },
    });
    // The floor and the server's and channel's own hidden tags hold in every channel: an image they hide
    // is not posted (a feed of hidden cards is noise).
    const hiding = hidingRule(image.tags, view.rules);
    if (hiding !== undefined) {
      view.rules.observe?.('hidden', hiding.layer);
      logger.debug({ feedId: stored.id, imageId: image.id }, 'feed image hidden by the rules; not posted');
      return 'skipped';
    }
    const card = imageCard(image, cardContext(view, round.filter));
    const body: MessageBody = cardMessage(card, item.site, image.id);
    const result = await deps.poster().post(stored.channelId, body, nonceOf('i', stored.id, image.id));
    if (!result.ok) {
      if (result.reason === 'missing') await deps.pause(stored, 'channel-missing', 'the channel was deleted');
      else if (result.reason === 'forbidden') {
        await deps.pause(
          stored,
          'forbidden',
          'the bot may no longer post there (View Channel, Send Messages, Embed Links)',
          'cannot-post',
        );
      } else logger.warn({ feedId: stored.id, detail: result.detail }, 'feed post failed; next round');
      return 'end';
    }
    const written = await feeds.update(stored.guildId, stored.id, (current) => ({
      ...current,
      cursor: image.id,
      lastPostAt: now(),
    }));
    return written === undefined || written.paused !== undefined ? 'end' : 'posted';
  }

  /** Posts what is new for one feed from its band; resolves with how many images went out. */
  return async function serveFeed(item: Due, band: Band, round: GroupRound): Promise<number> {
    const { feed, site } = item;
    // The stored feed now: removed, paused or moved on since the round began means less or nothing to do.
    const stored = (await feeds.list(feed.guildId)).find((f) => f.id === feed.id);
    if (stored === undefined || stored.paused !== undefined) return 0;
    const mine = band.images.filter((image) => image.id > stored.cursor);
    const beyond = Math.max(0, band.total - band.images.length);
    if (mine.length === 0 && beyond === 0) return 0;
    const at = now();
    const waiting = mine.findIndex(
      (image) =>
        (!image.thumbnails_generated && at - Date.parse(image.created_at) < PROCESSING_WAIT_MS) ||
        !settled(image, at, item.ageRestricted),
    );
    const ready = waiting < 0 ? mine : mine.slice(0, waiting);
    const posting = ready.slice(0, maxPerPoll);
    // Read once per feed and round (the poster keeps it: from the live cache, else a cached read).
    const guildLocale = await guildLocaleOf(stored.guildId);
    let posted = 0;
    for (const image of posting) {
      if (deps.stopping()) return posted;
      const outcome = await postOne(item, stored, image, round, guildLocale);
      if (outcome === 'end') return posted;
      if (outcome === 'posted') posted += 1;
    }
    // Held back by an image still processing or settling: the rest waits for it, no "more" line.
    if (waiting >= 0 && ready.length <= maxPerPoll) return posted;
    const skipped = ready.length - posting.length + (waiting < 0 ? beyond : 0);
    if (skipped <= 0) return posted;
    const newest = beyond > 0 && waiting < 0 ? await round.newest() : ready.at(-1)?.id;
    if (newest === undefined) return posted;
    const say = sayIn(await moreLocale(stored, guildLocale));
    await deps.paced();
    if (deps.stopping()) return posted;
    const result = await deps.poster().post(
      stored.channelId,
      {
        content: moreLine(site, stored.query, item.sent, skipped, say),
        embeds: [],
        components: [],
      },
      nonceOf('m', stored.id, newest),
    );
    if (result.ok)
      await feeds.update(stored.guildId, stored.id, (current) => ({ ...current, cursor: newest }));
    return posted;
  };
}
