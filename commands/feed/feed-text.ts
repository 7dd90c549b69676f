/**
 * What `/feed` answers the member who used it, in their language (issue 21): the catalogue keys under
 * `feed.` (locales/*.json), one message per sentence so that translators see whole sentences. The posts
 * the poller makes are not here: they are for the whole channel, not for one member.
 *
 * What the board or the server wrote (site names, queries, pause details) goes in placeholders, escaped
 * here as today; numbers go in as numbers so that each language formats and pluralises them.
 */
import type { Translator } from '../../src/i18n/index.js';
import { escapeInline, truncate } from '../../src/render/index.js';
import { permissionList, type NamedPermission } from '../shared/permission-names.js';
import type { Say } from '../shared/say.js';
import type { Feed, FeedPause, PauseReason } from './feed-store.js';

/** A member's language and the translator that speaks it: what every text below needs. */
export interface FeedSpeaker {
  readonly translator: Translator;
  readonly locale: string;
}

/** The key of each pause reason's state line (`{detail}`: what the poller recorded, for all but admin). */
const PAUSE_KEY: Readonly<Record<PauseReason, string>> = {
  admin: 'feed.state.admin',
  'channel-missing': 'feed.state.channel-missing',
  forbidden: 'feed.state.forbidden',
  'query-rejected': 'feed.state.query-rejected',
};

/** The permissions a feed needs to post (the channel poster's own check). */
const POSTING: readonly NamedPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks'];

/**
 * A feed's state in the reader's language: running, or why it paused. A pause with a `cause` is said in
 * words of the catalogue; the board's words for a refused query go in as written; a pause kept before
 * causes were (its detail an English note) keeps the reason's general line with that note.
 */
function stateText({ translator, locale }: FeedSpeaker, paused: FeedPause | undefined): string {
  if (paused === undefined) return translator.t(locale, 'feed.state.running');
  const say: Say = (key, params) => translator.t(locale, key, params);
  if (paused.reason === 'forbidden' && paused.cause !== undefined) {
    return say(`feed.state.forbidden.${paused.cause}`, { permissions: permissionList(POSTING, say) });
  }
  if (paused.reason === 'channel-missing' && paused.detail === '') return say('feed.state.channel-gone');
  if (paused.reason === 'forbidden' && paused.detail === '') return say('feed.state.forbidden.cannot-see');
  return say(PAUSE_KEY[paused.reason], { detail: escapeInline(truncate(paused.detail, 150)) });
}

/** A query for inside the message's `code` span: a backtick in it cannot close the span early. */
function codeText(query: string, max = 200): string {
  return truncate(query, max).replace(/`/g, "'");
}

export interface AddedFeed {
  readonly id: string;
  readonly siteName: string;
  readonly query: string;
  readonly channelId: string;
  readonly intervalMs: number;
  readonly ageRestricted: boolean;
}

/** The confirmation of `/feed add`: where the feed posts, how often, and which ratings. */
export function addedText({ translator, locale }: FeedSpeaker, feed: AddedFeed): string {
  const added = translator.t(locale, 'feed.add.done', {
    id: feed.id,
    site: escapeInline(feed.siteName),
    query: codeText(feed.query),
    channel: feed.channelId,
    minutes: Math.round(feed.intervalMs / 60_000),
  });
  const rule = translator.t(
    locale,
    feed.ageRestricted ? 'feed.add.age-restricted' : 'feed.add.not-age-restricted',
  );
  return [added, rule].join('\n');
}

/** `/feed list`: the server's feeds, one line each, or how to add the first. */
export function listText(
  { translator, locale }: FeedSpeaker,
  all: readonly Feed[],
  limit: number,
  siteName: (siteId: string) => string,
): string {
  if (all.length === 0) return translator.t(locale, 'feed.list.empty');
  const lines = all.map((feed) => {
    const last =
      feed.lastPostAt === undefined
        ? translator.t(locale, 'feed.list.never-posted')
        : // A string, not a number: a timestamp is not a quantity to format with separators.
          translator.t(locale, 'feed.list.last-post', { time: String(Math.floor(feed.lastPostAt / 1000)) });
    const state = stateText({ translator, locale }, feed.paused);
    return translator.t(locale, 'feed.list.line', {
      id: feed.id,
      channel: feed.channelId,
      site: escapeInline(siteName(feed.siteId)),
      query: codeText(feed.query, 120),
      last,
      state,
    });
  });
  const header = translator.t(locale, 'feed.list.header', { count: all.length, limit });
  return [header, ...lines].join('\n');
}

/** The one-line answers of `remove`, `pause` and `resume`. */
export function removedText({ translator, locale }: FeedSpeaker, id: string, channelId: string): string {
  return translator.t(locale, 'feed.removed', { id, channel: channelId });
}

export function pausedText({ translator, locale }: FeedSpeaker, id: string): string {
  return translator.t(locale, 'feed.paused', { id });
}

export function alreadyRunningText({ translator, locale }: FeedSpeaker, id: string): string {
  return translator.t(locale, 'feed.already-running', { id });
}

export function resumedText({ translator, locale }: FeedSpeaker, id: string): string {
  return translator.t(locale, 'feed.resumed', { id });
}
