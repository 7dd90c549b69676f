/**
 * Every answer of `/me` in the pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and accented):
 * each comes from the catalogue (no line of ours left in plain English), and each stays within Discord's
 * 2,000 characters of content; the longest one (`/me show` with 200 long hidden tags) is cut in its tag
 * list, never in what comes before it.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeCommand } from '../../../commands/me/me.js';
import { createMemberSettings, type MemberSettings } from '../../../commands/me/member-settings.js';
import type { ChatCommand } from '../../../commands/shared/context.js';
import type { Reply } from '../../../src/discord/contract.js';
import { createTranslator, loadCatalogues } from '../../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoCatalogue } from '../../../src/i18n/pseudo.js';
import { createLogger } from '../../../src/logger.js';
import { FILTER_IDS } from '../../fakes/philomena/index.js';
import {
  fakeInteraction,
  startCommandBed,
  type CommandBed,
  type FakeInteraction,
} from '../../support/commands.js';

const CONTENT_MAX = 2000;
/** Every word of a pseudo-locale message carries one of these (accents, or the padding dots). */
const PSEUDO = /[·áéíóúŕšţ]/;

let bed: CommandBed;
let members: MemberSettings;
let command: ChatCommand;
beforeAll(async () => {
  bed = await startCommandBed();
  const catalogues = new Map(loadCatalogues());
  const english = catalogues.get('en-US');
  if (english === undefined) throw new Error('no English catalogue');
  catalogues.set(PSEUDO_LOCALE, pseudoCatalogue(english));
  members = createMemberSettings({ store: new Keyv(), logger: createLogger({ level: 'silent' }) });
  command = createMeCommand({ members, translator: createTranslator(catalogues) });
});
afterAll(async () => {
  await bed.close();
});

async function answer(
  subcommand: string,
  values: Readonly<Record<string, string | number | boolean>> = {},
): Promise<string> {
  const interaction: FakeInteraction = fakeInteraction('me', values, 'dm', { subcommand });
  const context = { ...(await bed.context(interaction)), locale: PSEUDO_LOCALE };
  const reply: Reply = await command.execute(interaction as never, context);
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  const content = reply.body.content ?? '';
  expect(content.length, subcommand).toBeLessThanOrEqual(CONTENT_MAX);
  return content;
}

/** Each line of `text` is a catalogue message (stretched), not English the code wrote itself. */
function expectPseudo(text: string, lines = text.split('\n')): void {
  for (const line of lines) expect(line, text).toMatch(PSEUDO);
}

describe('/me in the pseudo-locale', () => {
  it('GIVEN /me unfurl, forget and show of an empty record THEN every line is the pseudo-locale and within 2,000 characters', async () => {
    expectPseudo(await answer('unfurl', { enabled: false }));
    expectPseudo(await answer('unfurl', { enabled: true }));
    expectPseudo(await answer('show'));
    expectPseudo(await answer('forget'));
  });

  it('GIVEN /me filter shown, set, shown again and reset THEN our sentences are the pseudo-locale and within 2,000 characters', async () => {
    expectPseudo(await answer('filter'));
    const set = await answer('filter', { filter_id: FILTER_IDS.everything });
    // The filter's own description below is the renderer's (src/render/filter-summary.ts), not ours.
    expectPseudo(set, set.split('\n').slice(0, 1));
    expectPseudo(await answer('filter'));
    expectPseudo(await answer('show'));
    expectPseudo(await answer('filter', { reset: true }));
  });

  it('GIVEN /me hide and unhide, changed, unchanged and nothing changed THEN every line is the pseudo-locale', async () => {
    expectPseudo(await answer('hide', { tags: 'gore, guts' }));
    expectPseudo(await answer('hide', { tags: 'gore' }));
    expectPseudo(await answer('unhide', { tags: 'guts' }));
    expectPseudo(await answer('unhide', { tags: 'guts' }));
    await answer('forget');
  });

  it('GIVEN 200 hidden tags of long names THEN /me show is cut to 2,000 characters in the tag list, never before it', async () => {
    const names = Array.from(
      { length: 200 },
      (_, i) => `a rather long tag name number ${i} ${'x'.repeat(120)}`,
    );
    const memberId = fakeInteraction('me', {}, 'dm').user.id;
    await members.updateHiddenTags(memberId, () => names);
    await members.setUnfurl(memberId, false);
    const show = await answer('show');
    expect(show.length).toBeGreaterThan(1500);
    const lines = show.split('\n');
    expectPseudo(show, lines.slice(0, 4));
    expect(lines[4]).toContain('`a rather long tag name number 0');
    await answer('forget');
  });
});
