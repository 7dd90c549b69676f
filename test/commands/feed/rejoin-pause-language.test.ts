/**
 * A feed paused because the bot was removed from its server, after the bot is added back (it waits for
 * `/feed resume`): `/feed list` says why in the admin's language, from the pause's cause, with no English
 * note of the poller's left in the line (issue 21).
 */
import { ChannelType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalLeases } from '../../../commands/feed/leases.js';
import { createFeedStore } from '../../../commands/feed/feed-store.js';
import { listText } from '../../../commands/feed/feed-text.js';
import { createFeedPoller } from '../../../commands/feed/poller.js';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import type { ChannelPoster } from '../../../src/discord/channel-poster.js';
import { sayIn } from '../../../src/i18n/index.js';
import { createLogger } from '../../../src/logger.js';
import { createClientRegistry } from '../../../src/philomena/registry.js';
import { resolveSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';
import { FILTER_IDS, startFakePhilomena, type FakePhilomena } from '../../fakes/philomena/index.js';
import { createMovableClock } from '../../support/clock.js';
import { ROOMY_BUDGET } from '../../support/harness.js';
import { translatorWithPseudo } from '../../support/locales.js';

let booru: FakePhilomena;
beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterAll(async () => {
  await booru.close();
});

describe('a feed of a server the bot was added back to, in /feed list', () => {
  it('GIVEN the bot removed from a server and added back THEN the German list says why in German only', async () => {
    const site = resolveSite(booru.url);
    const store = createStore('memory://');
    const logger = createLogger({ level: 'silent', secrets: [] });
    const registry = createClientRegistry({ defaultSite: site, cache: store, logger, budget: ROOMY_BUDGET });
    const feeds = createFeedStore(store);
    const clock = createMovableClock(Date.now);
    const left = new Set<string>();
    const poster: ChannelPoster = {
      holds: (guildId) => !left.has(guildId),
      channel: (id) =>
        Promise.resolve({ id, type: ChannelType.GuildText, nsfw: false, flags: 0, parent: null }),
      post: () => Promise.resolve({ ok: true, messageId: '1' }),
    };
    const poller = createFeedPoller({
      feeds,
      registry,
      sites: createSiteDirectory({ defaultSite: site, defaultFilterId: FILTER_IDS.everything }),
      settings: createGuildSettings({ store, logger }),
      leases: createLocalLeases(clock.now),
      logger,
      intervalMs: 60_000,
      maxPerPoll: 10,
      settleMs: 0,
      tickMs: 3_600_000,
      now: clock.now,
    });
    try {
      poller.start(poster);
      await poller.pollNow();
      const start = booru.addImage({ tags: ['safe', 'rejoinlang'] });
      const base = { siteId: site.id, createdBy: 'u', createdAt: 0, query: 'rejoinlang', cursor: start };
      await feeds.add({ ...base, guildId: 'g1', channelId: 'c1' }, 10);
      left.add('g1');
      poller.serverRemoved?.('g1');
      await poller.pollNow();
      clock.advance(3_600_000);
      left.delete('g1');
      await poller.pollNow();

      const translator = translatorWithPseudo();
      const listed = listText({ translator, locale: 'de' }, await feeds.list('g1'), 10, () => 'Site');
      expect(listed).toContain(sayIn('de', translator)('feed.state.forbidden.removed'));
      expect(listed).not.toMatch(/removed|the bot/);
    } finally {
      await poller.stop();
      await registry.close();
    }
  });
});
