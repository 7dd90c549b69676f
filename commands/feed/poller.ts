/**
 * The feed poller: new images matching each feed's search, posted to its channel, once each, oldest first.
 *
 * Politeness. Feeds with the same (site, query as sent, filter) share one search per interval, whichever
 * servers they belong to: the search asks for `id.gt:<lowest cursor of the group>`, sorted by id
 * ascending, 50 per page, fresh (never from the cache). It goes into the site's budget as `feed`, after
 * every member's command and every unfurl, and gives up rather than wait long: a poll that cannot get a
 * slot tries again at the next interval. Searches are spread over the interval (at most a share of the
 * groups per tick). A board failure backs the group off (2, 4, 8, 16 intervals); a query the board refuses
 * (400) pauses its feeds with the board's words.
 *
 * One process per group. Before polling a group, the process takes its lease for one interval
 * (`PollLeases`: Redis SET NX PX with a Redis store, an in-process map otherwise), so however many
 * processes run, each group is searched once per interval, and a crashed process's groups are taken over
 * within one interval.
 *
 * Exactly once. A post carries a nonce made of the feed and image ids with `enforce_nonce`, so Discord
 * creates at most one message for it even when the send is retried after a crash or by another process;
 * the feed's cursor is written after each post (an atomic update that only ever raises it), so a restart
 * goes on after the last image posted. An image still processing (`thumbnails_generated` false) holds the
 * feed back at it, up to 10 minutes after its upload, then goes out with the processing card.
 *
 * Safety. The channel decides, read fresh at every post (from the live cache where this process receives
 * its server's events, else from Discord): outside an age-restricted channel the search is
 * `(<query>), safe` and the card shows a picture only for a safe image (the rating rule of every card),
 * with the server's filter for the site (spoilered images get the card without the picture, with Reveal).
 * A channel that is gone, or where the bot may not post, pauses the feed; `/feed list` says why.
 */
import { createHash } from 'node:crypto';
import type { ChannelPoster } from '../../src/discord/channel-poster.js';
import type { BackgroundTask, MessageBody } from '../../src/discord/contract.js';
import type { Logger } from '../../src/logger.js';
import { BadQueryError } from '../../src/philomena/errors.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import type { Site } from '../../src/philomena/sites.js';
import { escapeInline, imageCard, truncate } from '../../src/render/index.js';
import type { GuildSettings } from '../shared/guild-settings.js';
import { isAgeRestrictedChannel, safeSearchQuery } from '../shared/safety.js';
import { cardContext, cardMessage, filterContext } from '../shared/show-image.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { makeView } from '../shared/view.js';
import type { Feed, FeedStore, PauseReason } from './feed-store.js';
import type { PollLeases } from '../../src/shared/leases.js';

/** How long an image still processing holds its feed back before it goes out with the processing card. */
export const PROCESSING_WAIT_MS = 10 * 60_000;
/** The board's page size for feed searches (its maximum). */
const PAGE = 50;
/**
 * Groups one process serves at once. A group's search is quick and its posts are paced, so many groups
 * can wait for their turn to post while the next ones are searched; this only bounds the memory (one page
 * of at most 50 images each).
 */
const MAX_ACTIVE_GROUPS = 256;
/**
 * Feed posts per second per process: Discord counts them in the bot's global 50 requests a second, which
 * answers to members share, so feeds keep to a part of it.
 */
export const FEED_POSTS_PER_SECOND = 10;

/** Back-off of a group whose search failed: intervals, doubling per failure in a row, at most this many. */
const MAX_BACKOFF_INTERVALS = 16;

export interface FeedPollerOptions {
  readonly feeds: FeedStore;
  readonly registry: ClientRegistry;
  readonly sites: SiteDirectory;
  readonly settings: GuildSettings;
  readonly leases: PollLeases;
  readonly logger: Logger;
  readonly intervalMs: number;
  /** Images one feed posts per poll; the rest are counted in one line with a link. */
  readonly maxPerPoll: number;
  /** How often the poller looks for groups that are due. Default interval / 20 (15 s for 5 min). */
  readonly tickMs?: number;
  readonly now?: () => number;
  /** Told of each poll's outcome (metrics, tests). */
  readonly onPoll?: (event: PollEvent) => void;
}

export interface PollEvent {
  readonly site: string;
  readonly feeds: number;
  readonly outcome: 'ok' | 'board-failed' | 'query-rejected';
  readonly posted: number;
}

export interface FeedPoller extends BackgroundTask {
  /** One round now (tests, and the first round after start); resolves when it is over. */
  pollNow(): Promise<void>;
}

/** A feed ready to be polled: its site, view of its channel and the search it needs. */
interface Due {
  readonly feed: Feed;
  readonly site: Site;
  readonly filterId: number | undefined;
  readonly guildFilters: Readonly<Record<string, number>>;
  readonly ageRestricted: boolean;
  readonly sent: string;
}

/** Discord nonces are at most 25 characters: a prefix and 24 of a hash. */
function nonceOf(kind: 'i' | 'm', feedId: string, id: number): string {
  return kind + createHash('sha256').update(`${feedId}:${id}`).digest('base64url').slice(0, 24);
}

function groupKey(due: Due): string {
  return `${due.site.id}\n${due.filterId ?? ''}\n${due.sent}`;
}

/** The lease's name: short and free of the query's characters. */
function leaseName(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 32);
}

export function createFeedPoller(options: FeedPollerOptions): FeedPoller {
  const { feeds, registry, sites, settings, leases, logger, intervalMs, maxPerPoll } = options;
  const now = options.now ?? Date.now;
  const tickMs = options.tickMs ?? Math.max(1_000, Math.floor(intervalMs / 20));
  /** Failures in a row per group (this process's view; the lease carries the back-off to the others). */
  const failures = new Map<string, number>();
  /** Where each feed's channel stood at its last read: grouping only; every post reads it again. */
  const channelAges = new Map<string, { ageRestricted: boolean; at: number }>();
  let poster: ChannelPoster | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** Groups being served now, by key. */
  const active = new Map<string, Promise<void>>();
  /** When the next feed post may go (pacing to FEED_POSTS_PER_SECOND). */
  let nextPostAt = 0;

  async function paced(signal: AbortSignal | undefined): Promise<void> {
    const at = performance.now();
    const wait = Math.max(0, nextPostAt - at);
    nextPostAt = Math.max(at, nextPostAt) + 1000 / FEED_POSTS_PER_SECOND;
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        // The listener goes with the wait: one per post would pile up on the poller's long-lived signal.
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
  let stopping = false;
  let stopController = new AbortController();

  async function pause(feed: Feed, reason: PauseReason, detail: string): Promise<void> {
    logger.warn({ guildId: feed.guildId, feedId: feed.id, reason, detail }, 'feed paused');
    await feeds.update(feed.guildId, feed.id, (current) => ({
      ...current,
      paused: { reason, detail: truncate(detail, 200), at: now() },
    }));
  }

  /** The channel's age restriction, read fresh; null when the channel is gone. */
  async function readChannel(channelId: string): Promise<{ ageRestricted: boolean } | null> {
    if (poster === undefined) throw new Error('the poller is not started');
    const channel = await poster.channel(channelId);
    if (channel === null) return null;
    const ageRestricted = isAgeRestrictedChannel(channel);
    channelAges.set(channelId, { ageRestricted, at: now() });
    return { ageRestricted };
  }

  /** Every running feed, with what its search is; a feed whose server or channel cannot be read waits. */
  async function dueFeeds(): Promise<Due[]> {
    const due: Due[] = [];
    for (const guildId of await feeds.guilds()) {
      let record;
      let list;
      try {
        [record, list] = await Promise.all([settings.get(guildId), feeds.list(guildId)]);
      } catch (error) {
        logger.debug({ err: error, guildId }, 'feeds of a server skipped this round: store unavailable');
        continue;
      }
      for (const feed of list) {
        if (feed.paused !== undefined) continue;
        const site = sites.byId(feed.siteId);
        if (site === undefined) continue;
        let known = channelAges.get(feed.channelId);
        if (known === undefined || now() - known.at > intervalMs) {
          try {
            const read = await readChannel(feed.channelId);
            if (read === null) {
              await pause(feed, 'channel-missing', 'the channel was deleted');
              continue;
            }
            known = { ...read, at: now() };
          } catch (error) {
            logger.info({ err: error, channelId: feed.channelId }, 'feed channel could not be read; later');
            continue;
          }
        }
        due.push({
          feed,
          site,
          filterId: sites.filterFor(site, record.filters),
          guildFilters: record.filters,
          ageRestricted: known.ageRestricted,
          sent: safeSearchQuery(feed.query, known.ageRestricted),
        });
      }
    }
    return due;
  }

  function searchLink(site: Site, sent: string): string {
    return `${site.baseUrl}/search?q=${encodeURIComponent(sent)}&sf=id&sd=desc`;
  }

  /** Posts what is new for one feed of a group; resolves with how many images went out. */
  async function serveFeed(
    item: Due,
    images: readonly VisibleImage[],
    more: { readonly total: number; readonly newest: () => Promise<number | undefined> },
    filter: Awaited<ReturnType<typeof filterContext>>,
  ): Promise<number> {
    const { feed, site } = item;
    // The stored feed now: removed, paused or moved on since the round began means nothing to do here.
    const stored = (await feeds.list(feed.guildId)).find((f) => f.id === feed.id);
    if (stored === undefined || stored.paused !== undefined) return 0;
    const mine = images.filter((image) => image.id > stored.cursor);
    if (mine.length === 0 && more.total <= images.length) return 0;
    const channel = await readChannel(feed.channelId);
    if (channel === null) {
      await pause(stored, 'channel-missing', 'the channel was deleted');
      return 0;
    }
    // The channel changed since the round's search was chosen: the next round searches for it anew.
    if (channel.ageRestricted !== item.ageRestricted) return 0;
    const view = makeView({
      site,
      guildId: feed.guildId,
      ageRestricted: channel.ageRestricted,
      guildFilters: item.guildFilters,
      sites,
    });
    const at = now();
    const waiting = mine.findIndex(
      (image) => !image.thumbnails_generated && at - Date.parse(image.created_at) < PROCESSING_WAIT_MS,
    );
    const ready = waiting < 0 ? mine : mine.slice(0, waiting);
    const posting = ready.slice(0, maxPerPoll);
    let posted = 0;
    for (const image of posting) {
      if (stopping) return posted;
      await paced(stopController.signal);
      if (stopping) return posted;
      const card = imageCard(image, cardContext(view, filter));
      const body: MessageBody = cardMessage(card, site, image.id);
      const result = await poster?.post(feed.channelId, body, nonceOf('i', feed.id, image.id));
      if (result === undefined) return posted;
      if (!result.ok) {
        if (result.reason === 'missing') await pause(stored, 'channel-missing', 'the channel was deleted');
        else if (result.reason === 'forbidden') {
          await pause(
            stored,
            'forbidden',
            'the bot may no longer post there (View Channel, Send Messages, Embed Links)',
          );
        } else logger.warn({ feedId: feed.id, detail: result.detail }, 'feed post failed; next round');
        return posted;
      }
      posted += 1;
      const written = await feeds.update(feed.guildId, feed.id, (current) => ({
        ...current,
        cursor: image.id,
        lastPostAt: now(),
      }));
      if (written === undefined || written.paused !== undefined) return posted;
    }
    // Held back by an image still processing: the rest waits for it, no "more" line.
    if (waiting >= 0 && ready.length <= maxPerPoll) return posted;
    const beyondPage = Math.max(0, more.total - images.length);
    const skipped = ready.length - posting.length + (waiting < 0 ? beyondPage : 0);
    if (skipped <= 0) return posted;
    const newest = beyondPage > 0 && waiting < 0 ? await more.newest() : ready.at(-1)?.id;
    if (newest === undefined) return posted;
    const text = `…and ${skipped} more new image${skipped === 1 ? '' : 's'} for \`${escapeInline(truncate(feed.query, 200)).replace(/`/g, "'")}\`: ${searchLink(site, item.sent)}`;
    await paced(stopController.signal);
    const result = await poster?.post(
      feed.channelId,
      { content: text, embeds: [], components: [] },
      nonceOf('m', feed.id, newest),
    );
    if (result?.ok === true) {
      await feeds.update(feed.guildId, feed.id, (current) => ({ ...current, cursor: newest }));
    }
    return posted;
  }

  async function pollGroup(key: string, group: readonly Due[], signal: AbortSignal): Promise<void> {
    const first = group[0];
    if (first === undefined) return;
    const { site, filterId, sent } = first;
    const client = registry.client(site);
    const lowest = Math.min(...group.map((item) => item.feed.cursor));
    const call = {
      ...(filterId === undefined ? {} : { filterId }),
      fresh: true,
      signal,
      requester: { priority: 'feed', server: 'feeds', member: leaseName(key).slice(0, 8) },
    } as const;
    let page;
    try {
      page = await client.searchImages({
        ...call,
        q: `(${sent}), id.gt:${lowest}`,
        sf: 'id',
        sd: 'asc',
        perPage: PAGE,
      });
    } catch (error) {
      if (error instanceof BadQueryError) {
        for (const item of group) await pause(item.feed, 'query-rejected', error.message);
        options.onPoll?.({ site: site.id, feeds: group.length, outcome: 'query-rejected', posted: 0 });
        return;
      }
      failures.set(key, (failures.get(key) ?? 0) + 1);
      logger.info(
        { err: error, site: site.id, feeds: group.length },
        'feed search failed; later, with back-off',
      );
      options.onPoll?.({ site: site.id, feeds: group.length, outcome: 'board-failed', posted: 0 });
      return;
    }
    failures.delete(key);
    const images = page.items;
    const filter = await filterContext(client, filterId, logger);
    let newestCache: Promise<number | undefined> | undefined;
    const newest = () =>
      (newestCache ??= client
        .searchImages({ ...call, q: sent, sf: 'id', sd: 'desc', perPage: 1 })
        .then((top) => top.items[0]?.id)
        .catch(() => undefined));
    let posted = 0;
    for (const item of group) {
      if (stopping) break;
      try {
        posted += await serveFeed(item, images, { total: page.total, newest }, filter);
      } catch (error) {
        logger.warn({ err: error, feedId: item.feed.id }, 'feed round failed; next round');
      }
    }
    options.onPoll?.({ site: site.id, feeds: group.length, outcome: 'ok', posted });
  }

  async function round(): Promise<void> {
    const due = await dueFeeds();
    const groups = new Map<string, Due[]>();
    for (const item of due) {
      const key = groupKey(item);
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    // A share of the groups per tick, so the searches spread over the interval instead of bursting.
    const share = Math.max(1, Math.ceil((groups.size * tickMs) / intervalMs) + 1);
    let polled = 0;
    const keys = [...groups.keys()].sort(() => Math.random() - 0.5);
    for (const key of keys) {
      if (stopping || polled >= share || active.size >= MAX_ACTIVE_GROUPS) break;
      if (active.has(key)) continue;
      const backoff = Math.min(2 ** (failures.get(key) ?? 0), MAX_BACKOFF_INTERVALS);
      let mine: boolean;
      try {
        mine = await leases.take(leaseName(key), intervalMs * backoff);
      } catch (error) {
        logger.debug({ err: error }, 'feed lease unavailable; round skipped');
        return;
      }
      if (!mine) continue;
      polled += 1;
      const signal = AbortSignal.any([
        stopController.signal,
        AbortSignal.timeout(Math.min(intervalMs / 2, 60_000)),
      ]);
      // Not awaited: a group's posts must not hold back the next group's search (a few run at once).
      const work = pollGroup(key, groups.get(key) ?? [], signal)
        .catch((error: unknown) => logger.warn({ err: error }, 'feed group failed'))
        .finally(() => active.delete(key));
      active.set(key, work);
    }
  }

  function runRound(): Promise<void> {
    running ??= round()
      .catch((error: unknown) => logger.warn({ err: error }, 'feed round failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    name: 'feeds',
    start(channelPoster) {
      poster = channelPoster;
      stopping = false;
      stopController = new AbortController();
      if (timer !== undefined) return;
      timer = setInterval(() => void runRound(), tickMs);
      timer.unref();
      void runRound();
    },
    async stop() {
      stopping = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      stopController.abort(new Error('the bot is stopping'));
      await running;
      await Promise.all(active.values());
    },
    async pollNow() {
      await runRound();
      await Promise.all(active.values());
    },
  };
}
