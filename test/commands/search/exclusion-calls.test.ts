/**
 * Hidden-tag exclusions add no board call (issue 20; commands/shared/safety.ts `boardQuery`): a /search
 * page in a server that hides 45 tags costs the board as many calls as one that hides none (one search;
 * the exclusions ride in its query, at most QUERY_EXCLUSIONS_MAX of them), and paging inside the window of
 * results the search read costs none. Counted on the local board: counts, not times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../../fakes/discord/index.js';
import { customIdsOf } from '../../fakes/discord/v2.js';
import { QUERY_EXCLUSIONS_MAX } from '../../../src/render/content-rules.js';
import { expectNoDiscordProblems } from '../../support/checks.js';
import { footerText } from '../../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../../support/harness.js';

const HIDDEN = 45;
const RESULTS = 30;
const CLICKS = 8;
const fillers = Array.from({ length: HIDDEN }, (_, i) => `zx exclusion ${i}`);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  // The hidden tags must exist on the board for /settings to take them; no result carries one.
  h.booru.addImage({ tags: ['safe', ...fillers] });
  for (const set of ['warm', 'before', 'after']) {
    for (let i = 0; i < RESULTS; i += 1)
      h.booru.addImage({ tags: ['safe', 'artist:zx calls', `zx calls ${set}`] });
  }
});
afterAll(async () => {
  await h.close();
});

/** Board API calls made while `work` runs. */
async function boardCalls<T>(
  work: () => Promise<T>,
): Promise<{ result: T; calls: number; queries: string[] }> {
  const from = h.booru.requests.length;
  const result = await work();
  const made = h.booru.requests.slice(from).filter((r) => r.path.startsWith('/api/'));
  return {
    result,
    calls: made.length,
    queries: made.flatMap((r) => (r.path.endsWith('/search/images') ? [r.query.get('q') ?? ''] : [])),
  };
}

const search = (query: string): Promise<RecordedMessage> =>
  h.discord.sendCommand({ name: 'search', options: { query }, channel: 'plain' }).finalReply();

/** Next, `CLICKS` times, from `message`; the footers read. */
async function page(message: RecordedMessage): Promise<string[]> {
  const footers: string[] = [];
  let current = message;
  for (let i = 0; i < CLICKS; i += 1) {
    const id = customIdsOf(current).find((c) => c.startsWith('srch:next:'));
    if (id === undefined) throw new Error('no Next button');
    current = await h.discord.sendButton({ customId: id, message: current }).finalReply();
    footers.push(footerText(current));
  }
  return footers;
}

function hide(tags: readonly string[]): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommandGroup: 'tags',
      subcommand: 'hide',
      options: { tags: tags.join(', ') },
      channel: 'plain',
      userId: h.discord.guild.ownerId,
    })
    .finalReply();
}

describe('board calls of a search with hidden tags', () => {
  it(`GIVEN ${HIDDEN} hidden tags THEN a /search page costs the same board calls as with none, AND paging inside the window none`, async () => {
    // Whatever a first search reads once (the filter the cards name) is read before counting.
    await search('zx calls warm');

    const before = await boardCalls(() => search('zx calls before'));
    const beforePaging = await boardCalls(() => page(before.result));

    // At most 25 names a command.
    for (let i = 0; i < HIDDEN; i += 20) await hide(fillers.slice(i, i + 20));

    const after = await boardCalls(() => search('zx calls after'));
    const afterPaging = await boardCalls(() => page(after.result));

    expect(before.queries).toEqual(['(zx calls before), safe']);
    expect(after.queries).toHaveLength(1);
    const excluded = after.queries[0]?.match(/-"zx exclusion \d+"/g) ?? [];
    expect(excluded).toHaveLength(QUERY_EXCLUSIONS_MAX);
    expect(after.calls).toBe(before.calls);
    expect(after.calls).toBe(1);
    expect(beforePaging.calls).toBe(0);
    expect(afterPaging.calls).toBe(0);
    // The clicks did page: results 2 to 9 of 30.
    expect(afterPaging.result.at(-1)).toMatch(new RegExp(`${CLICKS + 1} of ${RESULTS}$`));
    expectNoDiscordProblems(h.discord);
  });
});
