/**
 * `/me` as a function (the command bed: real context over the local Philomena, a memory store): every
 * answer private, each subcommand's record, the filter checked with the board as /settings checks it, and
 * where the member's filter applies (a DM: yes; a server with the bot: never).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../../src/discord/contract.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { makeView } from '../../../commands/shared/view.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { FILTER_IDS } from '../../fakes/philomena/index.js';
import {
  fakeInteraction,
  startCommandBed,
  type CommandBed,
  type FakeInteraction,
  type Where,
} from '../../support/commands.js';

let bed: CommandBed;
beforeAll(async () => {
  bed = await startCommandBed();
});
afterAll(async () => {
  await bed.close();
});

function meCommand() {
  const command = bed.features.commands.find((c) => c.kind === 'chat' && c.data.name === 'me');
  if (command?.kind !== 'chat') throw new Error('no /me');
  return command;
}

async function run(interaction: FakeInteraction): Promise<Reply> {
  return meCommand().execute(interaction as never, await bed.context(interaction));
}

const me = (
  subcommand: string,
  values: Readonly<Record<string, string | number | boolean>> = {},
  where: Where = 'dm',
) => fakeInteraction('me', values, where, { subcommand });

function textOf(reply: Reply): string {
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  return reply.body.content ?? '';
}

async function failure(interaction: FakeInteraction): Promise<UserFacingError> {
  const error: unknown = await run(interaction).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof UserFacingError))
    throw new Error(`expected a UserFacingError, got ${String(error)}`);
  return error;
}

describe('/me', () => {
  it('GIVEN the command THEN every answer is private, whatever the place', () => {
    for (const where of ['dm', 'plain'] as const) {
      expect(meCommand().ephemeral?.(me('show', {}, where) as never)).toBe(true);
    }
  });

  it('GIVEN /me unfurl enabled:False THEN it is kept and said, /me show says it, AND enabled:True turns it back on', async () => {
    expect(textOf(await run(me('unfurl', { enabled: false }, 'plain')))).toMatch(
      /no longer unfurled.*every server and DM/,
    );
    expect(textOf(await run(me('show')))).toMatch(/Unfurling of links you post: \*\*off\*\*/);
    expect(textOf(await run(me('unfurl', { enabled: true })))).toMatch(/unfurled again/);
    expect(textOf(await run(me('show')))).toMatch(/Unfurling of links you post: on \(the default\)/);
  });

  it('GIVEN /me filter with a public filter THEN it is set and described, applies in a DM and in a server that chose none', async () => {
    const set = textOf(await run(me('filter', { filter_id: FILTER_IDS.everything }, 'plain')));
    expect(set).toMatch(/Your filter on .* is set\. It applies to what you ask for in DMs/);
    expect(set).toContain('Everything');
    expect((await bed.context(me('show'))).view.filterId).toBe(FILTER_IDS.everything);
    expect((await bed.context(me('show', {}, 'plain'))).view.filterId).toBe(FILTER_IDS.everything);
    expect(textOf(await run(me('show')))).toMatch(new RegExp(`filter ${FILTER_IDS.everything}`));
    expect(textOf(await run(me('filter')))).toMatch(
      new RegExp(`Your filter on .* is ${FILTER_IDS.everything}`),
    );

    expect(textOf(await run(me('filter', { reset: true })))).toMatch(/cleared/);
    expect((await bed.context(me('show'))).view.filterId).toBeUndefined();
    expect(textOf(await run(me('filter')))).toMatch(/no filter of your own/);
  });

  it('GIVEN a private filter or one the board does not have THEN refused as /settings refuses it, and nothing is kept', async () => {
    expect((await failure(me('filter', { filter_id: FILTER_IDS.otherPrivate }))).id).toBe(
      'settings.filter-not-public',
    );
    expect((await bed.context(me('show'))).view.filterId).toBeUndefined();
  });

  it('GIVEN both filter_id and reset THEN refused with a clear error', async () => {
    const error = await failure(me('filter', { filter_id: FILTER_IDS.everything, reset: true }));
    expect(error.id).toBe('me.filter-and-reset');
  });

  it('GIVEN a site the bot does not know THEN refused', async () => {
    const error = await failure(me('filter', { filter_id: FILTER_IDS.everything, site: 'nowhere' }));
    expect(error.id).toBe('me.unknown-site');
  });

  it('GIVEN /me forget THEN everything kept is gone at once, said, AND forgetting again is fine', async () => {
    await run(me('unfurl', { enabled: false }));
    await run(me('filter', { filter_id: FILTER_IDS.everything }));
    expect(textOf(await run(me('forget')))).toMatch(/^Deleted everything/);
    const shown = textOf(await run(me('show')));
    expect(shown).toMatch(/on \(the default\)/);
    expect(shown).toMatch(/Your filters: none/);
    expect(shown).toMatch(/Your hidden tags: none/);
    expect((await bed.context(me('show'))).view.filterId).toBeUndefined();
    expect(textOf(await run(me('forget')))).toMatch(/^Deleted everything/);
  });
});

describe('where a member filter applies (makeView)', () => {
  it('GIVEN a server record with a filter for the site AND a member filter THEN the server wins; without one, the member beats the bot default', () => {
    const site = knownSite('derpibooru');
    if (site === undefined) throw new Error('no site');
    const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: 9 });
    const view = (guildFilters: Readonly<Record<string, number>>, memberFilters?: Record<string, number>) =>
      makeView({
        site,
        guildId: '1',
        ageRestricted: false,
        guildFilters,
        sites,
        ...(memberFilters === undefined ? {} : { memberFilters }),
      }).filterId;
    expect(view({ derpibooru: 5 }, { derpibooru: 7 })).toBe(5);
    expect(view({}, { derpibooru: 7 })).toBe(7);
    expect(view({}, { furbooru: 7 })).toBe(9);
    expect(view({})).toBe(9);
  });
});

describe('/me hide and unhide', () => {
  it('GIVEN /me hide by an alias THEN its tag is kept AND /me unhide by the alias takes that tag out', async () => {
    const hidden = textOf(await run(me('hide', { tags: 'gory, safe' })));
    expect(hidden).toMatch(/Hidden from what you ask for: `gore`, `safe`/);
    expect(hidden).toMatch(/`gory` is an alias: stored as `gore`/);
    const show = textOf(await run(me('show')));
    expect(show).toMatch(/Your hidden tags \(2\)/);
    const unhidden = textOf(await run(me('unhide', { tags: 'Gory' })));
    expect(unhidden).toMatch(/No longer hidden: `gore`/);
    expect(textOf(await run(me('show')))).toMatch(/Your hidden tags \(1\).*`safe`/s);
    await run(me('forget'));
  });

  it('GIVEN a name that is no tag THEN refused with the check’s word AND nothing kept', async () => {
    const error = await failure(me('hide', { tags: 'definitely not a tag anywhere' }));
    expect(error.id).toBe('tags.none-accepted');
    expect(textOf(await run(me('show')))).toMatch(/Your hidden tags: none/);
  });
});
