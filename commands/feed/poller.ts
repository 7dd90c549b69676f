/**
 * The feed poller: new images matching each feed's search, posted to its channel, once each, oldest first.
 *
 * Politeness to the board. Feeds with the same (site, query as sent, filter) share a group, whichever
 * servers they belong to, and a group is searched once per interval: `id.gt:<cursor>`, sorted by id
 * ascending, 50 per page, fresh (never from the cache), one search per band of cursors (bands.ts: feeds that
 * are up to date share one; one that lags gets its own, so nobody loses images to another's cursor). The
 * searches go into the site's budget as `feed`, after every member's command and every unfurl, and give up
 * rather than wait long. Searches are spread over the interval (a share of the groups per tick). A board
 * failure backs the group off (2, 4, 8, 16 intervals); a query the board refuses (400) pauses its feeds with
 * the board's words.
 *
 * Politeness to Discord. A process reads only the channels of the servers it holds (its live cache, no
 * request) to group their feeds; the others are grouped by the channel's state stored with the feed, and
 * read by whoever wins the group's lease, just before posting. A channel Discord refuses to show (403: the
 * bot left or lost access) pauses its feed, and any other failed read is not retried for an interval: 403s
 * count toward Discord's invalid-request ban. A server the bot was removed from (GUILD_DELETE) has its feeds
 * paused and leaves the poll index; feeds paused that way, or because the channel is gone, for
 * `FORGET_AFTER_MS` are removed.
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
 * Safety (serve.ts). The channel and the server's settings are read again before every post: outside an
 * age-restricted channel the search is `(<query>), safe`, an image waits until it is FEED_SETTLE old and is
 * read fresh before it goes, and the card shows a picture only for a safe image (the rating rule of every
 * card), with the server's filter for the site. A channel that changed ends the round before the next post.
 */
import { createHash } from 'node:crypto';
import { ChannelForbiddenError, type ChannelPoster } from '../../src/discord/channel-poster.js';
import type { BackgroundTask } from '../../src/discord/contract.js';
import type { Logger } from '../../src/logger.js';
import { BadQueryError, NotFoundError } from '../../src/philomena/errors.js';
import type { ClientRegistry } from '../../src/philomena/registry.js';
import type { VisibleImage } from '../../src/philomena/schemas.js';
import { truncate } from '../../src/render/index.js';
import type { PollLeases } from './leases.js';
import type { GuildSettings } from '../shared/guild-settings.js';
import { isAgeRestrictedChannel, safeSearchQuery } from '../shared/safety.js';
import { filterContext } from '../shared/show-image.js';
import type { SiteDirectory } from '../shared/site-directory.js';
import { searchBands, type Band } from './bands.js';
import type { Feed, FeedStore, PauseCause, PauseReason } from './feed-store.js';
import { createFeedServer, type Due, type GroupRound } from './serve.js';
import { filterIn } from '../shared/view.js';
import type { RuleDecision, RuleLayer } from '../../src/render/content-rules.js';

/** The board's page size for feed searches (its maximum). */
const PAGE = 50;
/** Searches one group makes per round at most: one per band of cursors (bands.ts); the rest wait. */
const MAX_BANDS = 4;
/**
 * Groups one process serves at once. A group's search is quick and its posts are paced, so many groups
 * can wait for their turn to post while the next ones are searched; this only bounds the memory (a few
 * pages of at most 50 images each).
 */
const MAX_ACTIVE_GROUPS = 256;
/**
 * Feed posts per second per process: Discord counts them in the bot's global 50 requests a second, which
 * answers to members share, so feeds keep to a part of it.
 */
const FEED_POSTS_PER_SECOND = 10;

/** Back-off of a group whose search failed: intervals, doubling per failure in a row, at most this many. */
const MAX_BACKOFF_INTERVALS = 16;

/**
 * How long a feed stays paused because the bot lost its channel (removed from the server, no access, the
 * channel deleted) before it is removed, and a server the bot left keeps its feeds.
 */
export const FORGET_AFTER_MS = 30 * 24 * 3_600_000;
/** How often a process looks for feeds to forget. */
const FORGET_SWEEP_MS = 3_600_000;
/** Pause reasons that mean the bot lost the channel; after FORGET_AFTER_MS such a feed is removed. */
const LOST: ReadonlySet<PauseReason> = new Set(['forbidden', 'channel-missing']);

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
  /** How old an image must be before it is posted outside age-restricted channels (FEED_SETTLE); 0: none. */
  readonly settleMs?: number;
  /** How often the poller looks for groups that are due. Default interval / 20 (15 s for 5 min). */
  readonly tickMs?: number;
  readonly now?: () => number;
  /** Told of each poll's outcome (metrics, tests). */
  readonly onPoll?: (event: PollEvent) => void;
  /** Told of each image a rule in layers hid or spoilered (metrics). */
  readonly observe?: (decision: RuleDecision, layer: RuleLayer) => void;
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
  /** Channels whose read failed (not 403 or 404), with when to try again: never sooner than an interval. */
  const readFailures = new Map<string, number>();
  let poster: ChannelPoster | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** Groups being served now, by key. */
  const active = new Map<string, Promise<void>>();
  /** Servers being taken out after the bot was removed from them. */
  const removals = new Set<Promise<void>>();
  /** When the next feed post may go (pacing to FEED_POSTS_PER_SECOND). */
  let nextPostAt = 0;
  let lastForgetSweep = Number.NEGATIVE_INFINITY;
  let stopping = false;
  let stopController = new AbortController();

  async function paced(): Promise<void> {
    const signal = stopController.signal;
    const at = performance.now();
    const wait = Math.max(0, nextPostAt - at);
    nextPostAt = Math.max(at, nextPostAt) + 1000 / FEED_POSTS_PER_SECOND;
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        // The listener goes with the wait: one per post would pile up on the poller's long-lived signal.
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  function posterNow(): ChannelPoster {
    if (poster === undefined) throw new Error('the poller is not started');
    return poster;
  }

  /**
   * Pauses `feed`. `detail` goes to the log (the operator's English); only the board's own words for a
   * refused query are kept for the admin, who reads the rest from `cause` in their own language.
   */
  async function pause(feed: Feed, reason: PauseReason, detail: string, cause?: PauseCause): Promise<void> {
    logger.warn({ guildId: feed.guildId, feedId: feed.id, reason, detail, cause }, 'feed paused');
    const kept = reason === 'query-rejected' ? truncate(detail, 200) : '';
    await feeds.update(feed.guildId, feed.id, (current) => ({
      ...current,
      paused: { reason, detail: kept, ...(cause === undefined ? {} : { cause }), at: now() },
    }));
  }

  function readFailed(channelId: string): void {
    readFailures.set(channelId, now() + intervalMs);
  }

  const serveFeed = createFeedServer({
    feeds,
    settings,
    sites,
    logger,
    now,
    maxPerPoll,
    settleMs: options.settleMs ?? 0,
    poster: posterNow,
    paced,
    stopping: () => stopping,
    pause,
    readFailed,
    ...(options.observe === undefined ? {} : { observe: options.observe }),
  });

  /**
   * Where a feed's channel stands, for grouping: read from the live cache for a server this process holds
   * (no request), else as stored with the feed. Undefined when the feed waits (paused here, or a read
   * failed recently).
   */
  async function channelState(feed: Feed): Promise<boolean | undefined> {
    const retryAt = readFailures.get(feed.channelId);
    if (retryAt !== undefined) {
      if (now() < retryAt) return undefined;
      readFailures.delete(feed.channelId);
    }
    if (!posterNow().holds(feed.guildId)) return feed.ageRestricted ?? false;
    try {
      const channel = await posterNow().channel(feed.channelId, feed.guildId);
      if (channel === null) {
        await pause(feed, 'channel-missing', 'the channel was deleted');
        return undefined;
      }
      const ageRestricted = isAgeRestrictedChannel(channel);
      if (feed.ageRestricted !== ageRestricted) {
        await feeds.update(feed.guildId, feed.id, (current) => ({ ...current, ageRestricted }));
      }
      return ageRestricted;
    } catch (error) {
      if (error instanceof ChannelForbiddenError) {
        await pause(feed, 'forbidden', 'the bot can no longer see the channel or its server', 'cannot-see');
      } else {
        readFailed(feed.channelId);
        logger.info({ err: error, channelId: feed.channelId }, 'feed channel could not be read; later');
      }
      return undefined;
    }
  }

  /** Feeds that lost their channel long ago are removed, and servers the bot left long ago forgotten. */
  async function forgetLost(guildId: string, list: readonly Feed[]): Promise<void> {
    const at = now();
    for (const feed of list) {
      if (
        feed.paused !== undefined &&
        LOST.has(feed.paused.reason) &&
        at - feed.paused.at > FORGET_AFTER_MS
      ) {
        logger.info(
          { guildId, feedId: feed.id, reason: feed.paused.reason },
          'feed removed: paused too long',
        );
        await feeds.remove(guildId, feed.id);
      }
    }
  }

  /**
   * Servers the bot left: one it is back in (this process holds it again) returns to the poll index with
   * its feeds still paused, their 30 days counted again from now (an admin resumes them); one left more
   * than FORGET_AFTER_MS ago is forgotten. Feeds that lost their channel that long ago are removed.
   */
  async function sweepForgotten(): Promise<void> {
    const at = now();
    const sweep = at - lastForgetSweep >= FORGET_SWEEP_MS;
    if (sweep) lastForgetSweep = at;
    for (const [guildId, since] of Object.entries(await feeds.dormant())) {
      if (posterNow().holds(guildId)) {
        logger.info({ guildId }, 'the bot is back in a server it had left: its feeds wait for /feed resume');
        for (const feed of await feeds.list(guildId)) {
          if (feed.paused?.reason !== 'forbidden') continue;
          // Said by its cause, not by an English detail: `/feed list` reads it in each admin's language.
          await feeds.update(guildId, feed.id, (current) => ({
            ...current,
            paused: { reason: 'forbidden', detail: '', cause: 'removed', at },
          }));
        }
        await feeds.reindex(guildId);
      } else if (sweep && at - since > FORGET_AFTER_MS) {
        logger.info({ guildId }, 'feeds of a server the bot left long ago removed');
        await feeds.forget(guildId);
      }
    }
    if (!sweep) return;
    for (const guildId of await feeds.guilds()) await forgetLost(guildId, await feeds.list(guildId));
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
        const ageRestricted = await channelState(feed);
        if (ageRestricted === undefined) continue;
        due.push({
          feed,
          site,
          // A thread follows its parent channel's own settings.
          filterId: filterIn(record, feed.parentId ?? feed.channelId, site, sites),
          ageRestricted,
          sent: safeSearchQuery(feed.query, ageRestricted),
        });
      }
    }
    return due;
  }

  async function pollGroup(key: string, group: readonly Due[], signal: AbortSignal): Promise<void> {
    const first = group[0];
    if (first === undefined) return;
    const { site, filterId, sent } = first;
    const client = registry.client(site);
    const call = {
      ...(filterId === undefined ? {} : { filterId }),
      fresh: true,
      signal,
      requester: { priority: 'feed', server: 'feeds', member: leaseName(key).slice(0, 8) },
    } as const;
    let bands: Map<number, Band>;
    try {
      bands = await searchBands(
        group.map((item) => item.feed.cursor),
        maxPerPoll,
        MAX_BANDS,
        (above) =>
          client.searchImages({
            ...call,
            q: `(${sent}), id.gt:${above}`,
            sf: 'id',
            sd: 'asc',
            perPage: PAGE,
          }),
      );
    } catch (error) {
      if (error instanceof BadQueryError) {
        // The board's own words: /feed list shows them inside a sentence in the reader's language.
        for (const item of group) await pause(item.feed, 'query-rejected', error.serverMessage);
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
    const filter = await filterContext(client, filterId, logger);
    let newestCache: Promise<number | undefined> | undefined;
    const freshCache = new Map<number, Promise<VisibleImage | 'gone' | 'failed'>>();
    const round: GroupRound = {
      client,
      filter,
      newest: () =>
        (newestCache ??= client
          .searchImages({ ...call, q: sent, sf: 'id', sd: 'desc', perPage: 1 })
          .then((top) => top.items[0]?.id)
          .catch(() => undefined)),
      fresh(id) {
        let read = freshCache.get(id);
        if (read === undefined) {
          // Not from the cache: a search of this round seeded it with what the search said.
          read = client
            .image(id, { ...call })
            .then((image) => (image.kind === 'image' ? image : 'gone'))
            .catch((error: unknown) => {
              if (error instanceof NotFoundError) return 'gone' as const;
              logger.info({ err: error, imageId: id }, 'feed image could not be read again; later');
              return 'failed' as const;
            });
          freshCache.set(id, read);
        }
        return read;
      },
    };
    // Where a feed is further behind than its band holds, its "more" line jumps to the newest match: read
    // now, with the searches, so nothing uploaded while the posts go out is passed over uncounted.
    if ([...bands.values()].some((band) => band.total > band.images.length)) void round.newest();
    let posted = 0;
    for (const item of group) {
      if (stopping) break;
      // A feed beyond the searches this round allowed waits for the next round.
      const band = bands.get(item.feed.cursor);
      if (band === undefined) continue;
      try {
        posted += await serveFeed(item, band, round);
      } catch (error) {
        logger.warn({ err: error, feedId: item.feed.id }, 'feed round failed; next round');
      }
    }
    options.onPoll?.({ site: site.id, feeds: group.length, outcome: 'ok', posted });
  }

  async function round(): Promise<void> {
    try {
      await sweepForgotten();
    } catch (error) {
      logger.debug({ err: error }, 'feed sweep skipped: store unavailable');
    }
    for (const [channelId, retryAt] of readFailures) if (now() >= retryAt) readFailures.delete(channelId);
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

  /** The bot was removed from the server: its feeds pause, and no process reads them at every tick. */
  async function retire(guildId: string): Promise<void> {
    for (const feed of await feeds.list(guildId)) {
      if (feed.paused === undefined)
        await pause(feed, 'forbidden', 'the bot was removed from this server', 'removed');
    }
    await feeds.retire(guildId, now());
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
    serverRemoved(guildId) {
      const work = retire(guildId)
        .catch((error: unknown) => logger.warn({ err: error, guildId }, 'feeds of a left server not retired'))
        .finally(() => removals.delete(work));
      removals.add(work);
    },
    async stop() {
      stopping = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      stopController.abort(new Error('the bot is stopping'));
      await running;
      await Promise.all([...active.values(), ...removals]);
    },
    async pollNow() {
      await Promise.all(removals);
      await runRound();
      await Promise.all(active.values());
    },
  };
}
