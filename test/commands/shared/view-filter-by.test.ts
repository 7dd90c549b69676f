/**
 * Whose filter a view applies (issue 22 §2, commands/shared/view.ts `filterBy`): the channel's, else the
 * server's, else the member's own, else a linked account's current filter (no filter_id), else the site's
 * default; and whether the member's own key reads what they asked for (`ownAccount`): only where the
 * member's or their account's filter decides and they linked the site. Every combination, through
 * `makeView` and `resolveView`.
 */
import { ChannelType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { makeView, resolveView, type FilterSource } from '../../../commands/shared/view.js';
import { createLogger } from '../../../src/logger.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';

const derpibooru = knownSite('derpibooru');
const furbooru = knownSite('furbooru');
if (derpibooru === undefined || furbooru === undefined) throw new Error('known sites missing');
const DEFAULT_FILTER = 100073;
const sites = createSiteDirectory({ defaultSite: derpibooru, defaultFilterId: DEFAULT_FILTER });
const CHANNEL = 7;
const SERVER = 5;
const MEMBER = 9;

interface Case {
  readonly channel: boolean;
  readonly server: boolean;
  readonly member: boolean;
  readonly linked: boolean;
}

const CASES: readonly Case[] = [false, true].flatMap((channel) =>
  [false, true].flatMap((server) =>
    [false, true].flatMap((member) => [false, true].map((linked) => ({ channel, server, member, linked }))),
  ),
);

/** What the rule says for one case: who decides, the filter sent, and whether the member's key reads. */
function expected(c: Case): { filterBy: FilterSource; filterId: number | undefined; ownAccount: boolean } {
  if (c.channel) return { filterBy: 'channel', filterId: CHANNEL, ownAccount: false };
  if (c.server) return { filterBy: 'server', filterId: SERVER, ownAccount: false };
  if (c.member) return { filterBy: 'member', filterId: MEMBER, ownAccount: c.linked };
  if (c.linked) return { filterBy: 'account', filterId: undefined, ownAccount: true };
  return { filterBy: 'default', filterId: DEFAULT_FILTER, ownAccount: false };
}

const name = (c: Case) =>
  `channel ${c.channel ? 'set' : 'none'}, server ${c.server ? 'set' : 'none'}, member ${c.member ? 'set' : 'none'}, ${c.linked ? 'linked' : 'not linked'}`;

describe('whose filter a view applies (makeView)', () => {
  it.each(CASES.map((c) => [name(c), c] as const))('GIVEN %s THEN the rule of the header', (_name, c) => {
    const view = makeView({
      site: derpibooru,
      guildId: '1',
      ageRestricted: false,
      guildFilters: c.server ? { derpibooru: SERVER } : {},
      sites,
      ...(c.member ? { memberFilters: { derpibooru: MEMBER } } : {}),
      ...(c.linked ? { linkedSites: new Set(['derpibooru']) } : {}),
      layers: c.channel ? { channelId: '10', channelFilters: { derpibooru: CHANNEL } } : {},
    });
    const want = expected(c);
    expect({ filterBy: view.filterBy, filterId: view.filterId, ownAccount: view.ownAccount }).toEqual(want);
    // Without the account (the key gone meanwhile), the filter falls through as for an unlinked member.
    const without = view.withoutAccount();
    expect({
      filterBy: without.filterBy,
      filterId: without.filterId,
      ownAccount: without.ownAccount,
    }).toEqual(expected({ ...c, linked: false }));
    // Another site the member did not link: never their account, whatever this one says.
    const other = view.forSite(furbooru);
    expect(other.ownAccount).toBe(false);
    expect(other.filterBy).not.toBe('account');
  });

  it('GIVEN a member linked on another site only THEN this site keeps the default AND that site is read with the account', () => {
    const view = makeView({
      site: derpibooru,
      guildId: null,
      ageRestricted: false,
      guildFilters: {},
      sites,
      linkedSites: new Set(['furbooru']),
    });
    expect(view).toMatchObject({ filterBy: 'default', filterId: DEFAULT_FILTER, ownAccount: false });
    expect(view.forSite(furbooru)).toMatchObject({
      filterBy: 'account',
      filterId: undefined,
      ownAccount: true,
    });
  });

  it('GIVEN the account decides THEN the view’s other rules are unchanged (an account never widens a server’s)', () => {
    const base = {
      site: derpibooru,
      guildId: '1',
      ageRestricted: false,
      guildFilters: {},
      sites,
      layers: { channelId: '10', server: { hidden: ['gore'] } },
    } as const;
    const plain = makeView(base);
    const linked = makeView({ ...base, linkedSites: new Set(['derpibooru']) });
    expect(linked.rules).toEqual(plain.rules);
    expect(linked.ageRestricted).toBe(false);
  });
});

describe('whose filter a view applies (resolveView over a server record)', () => {
  const text = (id: string) => ({ id, type: ChannelType.GuildText, nsfw: false });
  const logger = createLogger({ level: 'silent' });

  it.each(CASES.map((c) => [name(c), c] as const))('GIVEN %s THEN the same rule', async (_name, c) => {
    const settings = createGuildSettings({ store: createStore('memory://'), logger });
    await settings.update('1', (current) => ({
      ...current,
      ...(c.server ? { filters: { derpibooru: SERVER } } : {}),
      channels: { '10': c.channel ? { filters: { derpibooru: CHANNEL } } : {} },
    }));
    const view = await resolveView(
      {
        guildId: '1',
        channel: text('10'),
        ...(c.member ? { memberFilters: { derpibooru: MEMBER } } : {}),
        ...(c.linked ? { linkedSites: new Set(['derpibooru']) } : {}),
      },
      { settings, sites },
    );
    expect({ filterBy: view.filterBy, filterId: view.filterId, ownAccount: view.ownAccount }).toEqual(
      expected(c),
    );
  });

  it('GIVEN a DM THEN a linked member’s account decides, and a member filter beats it', async () => {
    const settings = createGuildSettings({ store: createStore('memory://'), logger });
    const dm = { type: ChannelType.DM, nsfw: false };
    const linkedSites = new Set(['derpibooru']);
    const account = await resolveView({ guildId: null, channel: dm, linkedSites }, { settings, sites });
    expect(account).toMatchObject({ filterBy: 'account', filterId: undefined, ownAccount: true });
    const chosen = await resolveView(
      { guildId: null, channel: dm, linkedSites, memberFilters: { derpibooru: MEMBER } },
      { settings, sites },
    );
    expect(chosen).toMatchObject({ filterBy: 'member', filterId: MEMBER, ownAccount: true });
  });
});
