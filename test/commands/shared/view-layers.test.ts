/**
 * The view a channel gets from the server's one record: a channel's own settings win over the server's,
 * a thread follows its parent channel, the member's own list only when given, and the rules come outermost
 * first (floor, server, channel, member). And the record itself: one canonical stored form, bounded.
 */
import { ChannelType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createGuildSettings, storedGuildRecord } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { resolveView } from '../../../commands/shared/view.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { createLogger } from '../../../src/logger.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';

const derpibooru = knownSite('derpibooru');
const furbooru = knownSite('furbooru');
if (derpibooru === undefined || furbooru === undefined) throw new Error('known sites missing');
const sites = createSiteDirectory({ defaultSite: derpibooru, defaultFilterId: 100073 });
const quiet = createLogger({ level: 'silent' });

const text = (id: string) => ({ id, type: ChannelType.GuildText, nsfw: false });
const thread = (id: string, parentId: string) => ({
  id,
  type: ChannelType.PublicThread,
  parentId,
  parent: { type: ChannelType.GuildText, nsfw: false },
});

async function seeded() {
  const settings = createGuildSettings({ store: createStore('memory://'), logger: quiet });
  await settings.update('1', (current) => ({
    ...current,
    siteId: 'derpibooru',
    filters: { derpibooru: 5 },
    hiddenTags: ['gore'],
    spoileredTags: ['spiders'],
    channels: {
      '10': {
        siteId: 'furbooru',
        filters: { furbooru: 7, derpibooru: 8 },
        unfurl: false,
        imageReferences: false,
        hiddenTags: ['ai generated'],
        spoileredTags: ['clowns'],
      },
    },
  }));
  return settings;
}

describe('the view of a channel with settings of its own', () => {
  it('GIVEN a channel with its own site, filters, switches and tags THEN they win over the server’s, and the rules come outermost first', async () => {
    const settings = await seeded();
    const view = await resolveView({ guildId: '1', channel: text('10') }, { settings, sites });
    expect(view.site.id).toBe('furbooru');
    expect(view.filterId).toBe(7);
    expect(view.forSite(derpibooru).filterId).toBe(8);
    expect(view).toMatchObject({ channelId: '10', unfurl: false, imageReferences: false });
    const hidden = view.rules.hidden.filter((rule) => rule.layer !== 'floor');
    expect(hidden.map((rule) => [rule.layer, rule.tag])).toEqual([
      ['server', 'gore'],
      ['channel', 'ai generated'],
    ]);
    expect(view.rules.hidden[0]?.layer).toBe('floor');
    expect(view.rules.spoilered?.map((rule) => [rule.layer, rule.tag])).toEqual([
      ['server', 'spiders'],
      ['channel', 'clowns'],
    ]);
  });

  it('GIVEN a thread of that channel THEN it follows its parent; another channel gets the server’s', async () => {
    const settings = await seeded();
    const inThread = await resolveView({ guildId: '1', channel: thread('11', '10') }, { settings, sites });
    expect(inThread).toMatchObject({ channelId: '10', unfurl: false });
    expect(inThread.site.id).toBe('furbooru');
    const other = await resolveView({ guildId: '1', channel: text('12') }, { settings, sites });
    expect(other).toMatchObject({ channelId: '12', unfurl: true, imageReferences: true, filterId: 5 });
    expect(other.site.id).toBe('derpibooru');
    expect(other.rules.hidden.some((rule) => rule.tag === 'ai generated')).toBe(false);
  });

  it('GIVEN the member’s own list THEN it comes last, as the member layer; without it, none', async () => {
    const settings = await seeded();
    const mine = await resolveView(
      { guildId: '1', channel: text('12'), memberHidden: ['spiders'] },
      { settings, sites },
    );
    expect(mine.rules.hidden.at(-1)).toEqual({ tag: 'spiders', ratings: 'any', layer: 'member' });
    const theirs = await resolveView({ guildId: '1', channel: text('12') }, { settings, sites });
    expect(theirs.rules.hidden.some((rule) => rule.layer === 'member')).toBe(false);
  });

  it('GIVEN a DM THEN no server or channel layer, whatever the channel says', async () => {
    const settings = await seeded();
    const view = await resolveView({ guildId: null, channel: text('10') }, { settings, sites });
    expect(view.channelId).toBeNull();
    expect(view.rules.hidden.every((rule) => rule.layer === 'floor')).toBe(true);
    expect(view.rules.spoilered).toBeUndefined();
  });
});

describe('the server’s record', () => {
  it('GIVEN empty lists and a channel that sets nothing THEN the stored form leaves them out', () => {
    expect(
      storedGuildRecord({
        siteId: undefined,
        filters: {},
        hiddenTags: [],
        spoileredTags: [],
        channels: { '10': { hiddenTags: [], filters: {} }, '11': { unfurl: false } },
      }),
    ).toEqual({ filters: {}, channels: { '11': { unfurl: false } } });
  });

  it('GIVEN more than 100 channels with settings THEN refused with the bound said, and nothing written', async () => {
    const settings = await seeded();
    const many = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [String(1000 + i), { unfurl: false }]),
    );
    const error = await settings
      .update('1', (current) => ({ ...current, channels: many }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UserFacingError);
    expect(error).toMatchObject({ id: 'settings.too-many-channels' });
    expect(Object.keys((await settings.get('1')).channels ?? {})).toEqual(['10']);
  });

  it('GIVEN a stored record with a channel id that is not a snowflake THEN it reads as unset (damaged)', async () => {
    const store = createStore('memory://');
    await store.set('settings:guild:1', { filters: {}, channels: { general: { unfurl: false } } });
    const settings = createGuildSettings({ store, logger: quiet });
    expect(await settings.get('1')).toEqual({ siteId: undefined, filters: {} });
  });
});
