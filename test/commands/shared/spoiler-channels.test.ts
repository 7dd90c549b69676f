/**
 * Spoiler channels in the safety rules and the view (commands/shared/safety.ts, view.ts): the flag
 * IS_SPOILER_CHANNEL (1 << 21) read from a raw number (ChannelFacts, interaction payloads) or discord.js's
 * bit field; threads judged by their parent; a spoiler channel is a plain channel for the rating rule,
 * also when it claims to be age-restricted as well (fail closed); the view carries both into the cards.
 */
import { ChannelFlags, ChannelFlagsBitField, ChannelType, type Channel } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  IS_SPOILER_CHANNEL,
  isAgeRestrictedChannel,
  isSpoilerChannel,
  type ChannelLike,
} from '../../../commands/shared/safety.js';
import { makeView, resolveView } from '../../../commands/shared/view.js';
import { cardContext } from '../../../commands/shared/show-image.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createLogger } from '../../../src/logger.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';

// Compile-time: a discord.js channel fits the shape as it is.
const fromDiscordJs = (channel: Channel | null): boolean => isSpoilerChannel(channel);

const SPOILER = IS_SPOILER_CHANNEL;
const text = (nsfw: boolean, flags: unknown = 0): ChannelLike => ({
  type: ChannelType.GuildText,
  nsfw,
  flags,
});
const thread = (parent: unknown, flags = 0): ChannelLike => ({
  type: ChannelType.PublicThread,
  flags,
  parent,
});

describe('isSpoilerChannel and isAgeRestrictedChannel', () => {
  it('GIVEN the flag THEN it is Discord’s IS_SPOILER_CHANNEL, 1 << 21', () => {
    expect(IS_SPOILER_CHANNEL).toBe(1 << 21);
    expect(IS_SPOILER_CHANNEL).toBe(ChannelFlags.IsSpoilerChannel);
    expect(fromDiscordJs(null)).toBe(false);
  });

  it.each<[string, ChannelLike | null | undefined, boolean, boolean]>([
    // [what, channel, spoiler channel, age-restricted]
    ['a plain text channel', text(false), false, false],
    ['an age-restricted text channel', text(true), false, true],
    ['a spoiler channel (raw flags)', text(false, SPOILER), true, false],
    ['a spoiler channel among other flags', text(false, SPOILER | 16 | 1), true, false],
    ['a spoiler channel (discord.js bit field)', text(false, new ChannelFlagsBitField(SPOILER)), true, false],
    ['other flags only', text(false, 16 | (1 << 15)), false, false],
    ['flags as garbage', text(false, 'lots'), false, false],
    [
      'both age-restricted and a spoiler channel (fail closed: plain + spoiler)',
      text(true, SPOILER),
      true,
      false,
    ],
    ['a spoiler forum', { type: ChannelType.GuildForum, nsfw: false, flags: SPOILER }, true, false],
    ['a thread of a spoiler channel', thread(text(false, SPOILER)), true, false],
    ['a thread of a plain channel', thread(text(false)), false, false],
    ['a thread of an age-restricted channel', thread(text(true)), false, true],
    ['a thread of a channel flagged both ways', thread(text(true, SPOILER)), true, false],
    ['a thread flagged itself, in an age-restricted channel', thread(text(true), SPOILER), true, false],
    ['a thread whose parent is unknown (fail closed)', thread(null), true, false],
    ['a thread whose parent is unknown, undefined', { type: ChannelType.PrivateThread }, true, false],
    ['a DM', { type: ChannelType.DM, flags: 0 }, false, false],
    ['no channel', null, false, false],
  ])('GIVEN %s THEN spoiler %s, age-restricted %s', (_what, channel, spoiler, adult) => {
    expect(isSpoilerChannel(channel)).toBe(spoiler);
    expect(isAgeRestrictedChannel(channel)).toBe(adult);
  });
});

describe('the view of a spoiler channel', () => {
  const site = knownSite('derpibooru');
  if (!site) throw new Error('derpibooru missing');
  const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: undefined });
  const settings = createGuildSettings({
    store: createStore('memory://'),
    logger: createLogger({ level: 'silent' }),
  });
  const base = { site, guildId: '1', guildFilters: {}, sites };

  it('GIVEN makeView without the option THEN not a spoiler channel (the feed poller’s and every old caller’s default)', () => {
    expect(makeView({ ...base, ageRestricted: false }).spoilerChannel).toBe(false);
  });

  it('GIVEN makeView with spoilerChannel THEN every site’s view has it, never age-restricted, and cards built with it spoiler', () => {
    const view = makeView({ ...base, ageRestricted: true, spoilerChannel: true });
    expect(view.spoilerChannel).toBe(true);
    expect(view.ageRestricted).toBe(false);
    const other = knownSite('furbooru');
    if (!other) throw new Error('furbooru missing');
    expect(view.forSite(other)).toMatchObject({ spoilerChannel: true, ageRestricted: false });
    expect(cardContext(view, undefined)).toMatchObject({ spoilerChannel: true, ageRestricted: false });
    expect(
      cardContext(makeView({ ...base, ageRestricted: false }), undefined).spoilerChannel,
    ).toBeUndefined();
  });

  it.each<[string, string | null, ChannelLike | null, boolean]>([
    ['a spoiler channel in a server', '1', text(false, SPOILER), true],
    ['a thread of one', '1', thread(text(false, SPOILER)), true],
    ['a plain channel', '1', text(false), false],
    ['a server channel the bot cannot identify (fail closed)', '1', null, true],
    ['a DM, whatever its channel says', null, text(false, SPOILER), false],
  ])('GIVEN resolveView for %s THEN spoilerChannel %s', async (_what, guildId, channel, spoiler) => {
    const view = await resolveView({ guildId, channel }, { settings, sites });
    expect(view.spoilerChannel).toBe(spoiler);
    expect(view.ageRestricted).toBe(false);
  });
});
