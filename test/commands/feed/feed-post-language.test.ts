/**
 * Feed posts are what nobody asked for (issue 21): their words go out in the channel's language, else the
 * server's (`/settings language`), else Discord's preferred locale of the server as the poster reports it
 * now, else English. Against the local board, with a channel poster the test controls; the words checked
 * are the feed's own ("…and N more new images"), and the poster is asked for the server's locale once per
 * feed and round, not once per image.
 */
import { ChannelType, type Client } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFeedStore } from '../../../commands/feed/feed-store.js';
import { createLocalLeases } from '../../../commands/feed/leases.js';
import { createFeedPoller } from '../../../commands/feed/poller.js';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { createChannelPoster, type ChannelPoster } from '../../../src/discord/channel-poster.js';
import { createServerFacts } from '../../../src/discord/server-facts.js';
import { createLogger } from '../../../src/logger.js';
import { createClientRegistry, type ClientRegistry } from '../../../src/philomena/registry.js';
import { resolveSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';
import { FILTER_IDS, startFakePhilomena, type FakePhilomena } from '../../fakes/philomena/index.js';
import { createMovableClock } from '../../support/clock.js';
import { ROOMY_BUDGET } from '../../support/harness.js';

const INTERVAL_MS = 60_000;

let booru: FakePhilomena;
beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterAll(async () => {
  await booru.close();
});
const registries: ClientRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

/** A poller posting one image a round, so that every round with three new images writes a "more" line. */
async function setup(guildLocale: string | null | 'no-port') {
  const site = resolveSite(booru.url);
  const store = createStore('memory://');
  const logger = createLogger({ level: 'silent', secrets: [] });
  const registry = createClientRegistry({ defaultSite: site, cache: store, logger, budget: ROOMY_BUDGET });
  registries.push(registry);
  const feeds = createFeedStore(store);
  const settings = createGuildSettings({ store, logger });
  const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: FILTER_IDS.everything });
  const clock = createMovableClock(Date.now);
  const contents: string[] = [];
  const asked: string[] = [];
  const poster: ChannelPoster = {
    holds: () => true,
    channel: (id) =>
      Promise.resolve({ id, type: ChannelType.GuildText, nsfw: false, flags: 0, parent: null }),
    post(_channel, body) {
      if (body.content !== undefined && body.content !== '') contents.push(body.content);
      return Promise.resolve({ ok: true, messageId: String(contents.length) });
    },
    ...(guildLocale === 'no-port'
      ? {}
      : {
          guildLocale: (guildId: string) => {
            asked.push(guildId);
            return Promise.resolve(guildLocale);
          },
        }),
  };
  const poller = createFeedPoller({
    feeds,
    registry,
    sites,
    settings,
    leases: createLocalLeases(clock.now),
    logger,
    intervalMs: INTERVAL_MS,
    maxPerPoll: 1,
    settleMs: 0,
    tickMs: 3_600_000,
    now: clock.now,
  });
  poller.start(poster);
  await poller.pollNow();
  /** A feed in `channel` of `guild` with three new images, and one round: what the round wrote. */
  async function roundWithThreeNew(guild: string, channel: string, query: string): Promise<string> {
    const start = booru.addImage({ tags: ['safe', query] });
    await feeds.add(
      {
        guildId: guild,
        channelId: channel,
        query,
        cursor: start,
        siteId: site.id,
        createdBy: 'u',
        createdAt: 0,
      },
      10,
    );
    for (let i = 0; i < 3; i += 1) booru.addImage({ tags: ['safe', query] });
    clock.advance(INTERVAL_MS + 1_000);
    await poller.pollNow();
    return contents.at(-1) ?? '';
  }
  return { settings, asked, roundWithThreeNew };
}

describe('the words of a feed post', () => {
  it('GIVEN a server whose preferred locale is German THEN the "more" line is German, and the locale was asked once for the round', async () => {
    const t = await setup('de');
    expect(await t.roundWithThreeNew('g1', 'c1', 'langde')).toMatch(
      /^…und 2 weitere neue Bilder für `langde`: <http/,
    );
    expect(t.asked).toEqual(['g1']);
  });

  it('GIVEN the server set Russian THEN it wins over Discord’s German; a channel’s French wins over both', async () => {
    const t = await setup('de');
    await t.settings.update('g2', (current) => ({
      ...current,
      language: 'ru',
      channels: { '30': { language: 'fr' } },
    }));
    expect(await t.roundWithThreeNew('g2', '20', 'langru')).toMatch(
      /^…и ещё 2 новых изображения для `langru`/,
    );
    expect(await t.roundWithThreeNew('g2', '30', 'langfr')).toMatch(
      /^…et 2 autres nouvelles images pour `langfr`/,
    );
  });

  it('GIVEN a poster that cannot tell the server’s locale, or a locale the bot does not ship THEN English', async () => {
    const none = await setup('no-port');
    expect(await none.roundWithThreeNew('g3', 'c4', 'langnone')).toMatch(
      /^…and 2 more new images for `langnone`/,
    );
    const japanese = await setup('ja');
    expect(await japanese.roundWithThreeNew('g4', 'c5', 'langja')).toMatch(
      /^…and 2 more new images for `langja`/,
    );
  });
});

describe('the channel poster’s server locale', () => {
  /** A discord.js client as far as the poster reads it: its live guild cache and its REST client. */
  function clientWith(held: Map<string, { preferredLocale: string }>, answer: () => Promise<unknown>) {
    const gets: string[] = [];
    const client = {
      guilds: { cache: held },
      rest: {
        get: (route: string) => {
          gets.push(route);
          return answer();
        },
      },
    };
    // A stand-in for the two members the poster reads, not outside data.
    return { client: client as unknown as Client, gets };
  }

  it('GIVEN a server this process holds THEN what its shard said answers (GUILD_UPDATE keeps it current), without a request', async () => {
    const servers = createServerFacts();
    servers.apply({
      t: 'GUILD_CREATE',
      d: { id: '1', name: 'One', preferred_locale: 'de', roles: [], channels: [] },
    });
    const { client, gets } = clientWith(new Map(), () => Promise.resolve({}));
    const poster = createChannelPoster(client, { servers });
    expect(poster.holds('1')).toBe(true);
    expect(await poster.guildLocale?.('1')).toBe('de');
    servers.apply({ t: 'GUILD_UPDATE', d: { id: '1', preferred_locale: 'es-ES' } });
    expect(await poster.guildLocale?.('1')).toBe('es-ES');
    expect(gets).toEqual([]);
  });

  it('GIVEN a server it does not hold THEN one read of the guild, kept for a while, then read again', async () => {
    let now = 0;
    let locale = 'pl';
    const { client, gets } = clientWith(new Map(), () =>
      Promise.resolve({ id: '2', preferred_locale: locale }),
    );
    const poster = createChannelPoster(client, { now: () => now });
    expect(await poster.guildLocale?.('2')).toBe('pl');
    locale = 'ru';
    now += 60_000;
    expect(await poster.guildLocale?.('2')).toBe('pl');
    expect(gets).toEqual(['/guilds/2']);
    now += 10 * 60_000;
    expect(await poster.guildLocale?.('2')).toBe('ru');
    expect(gets).toHaveLength(2);
  });

  it('GIVEN Discord refuses or answers something else THEN null, and not asked again at once', async () => {
    const { client, gets } = clientWith(new Map(), () => Promise.reject(new Error('403 Missing Access')));
    const poster = createChannelPoster(client);
    expect(await poster.guildLocale?.('3')).toBeNull();
    expect(await poster.guildLocale?.('3')).toBeNull();
    expect(gets).toHaveLength(1);
    const odd = clientWith(new Map(), () => Promise.resolve({ id: '4' }));
    expect(await createChannelPoster(odd.client).guildLocale?.('4')).toBeNull();
  });
});
