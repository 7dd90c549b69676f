/**
 * `/settings filter` with a private filter asks the board for the key owner's filters. When that list
 * cannot be had because the board is busy or down, the admin is told so, not that the filter is private;
 * only the board refusing the list (403: no usable key) means "private".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FILTER_IDS } from '../fakes/philomena/index.js';
import { API, setServerFilter } from '../support/board.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function storedFilters(harness: Harness): Promise<unknown> {
  return harness.store.get(`settings:guild:${harness.discord.guild.id}`);
}

describe('/settings filter when the key owner filters cannot be listed', () => {
  it('GIVEN the board failing on the list THEN the admin reads that the site is down AND nothing is stored', async () => {
    h = await startHarness();
    h.booru.inject({ fault: { kind: 'status', status: 503 }, path: `${API}/filters/user`, times: 20 });
    const reply = await setServerFilter(h, FILTER_IDS.ownedPrivate);
    expect(reply.content).toMatch(/^The site is down or not answering right now\./);
    expect(reply.content).not.toContain('private');
    expect(await storedFilters(h)).toBeUndefined();
  });

  it('GIVEN the board rate-limiting the list THEN the admin reads that the site is busy', async () => {
    h = await startHarness();
    h.booru.inject({
      fault: { kind: 'rate-limit', retryAfterSeconds: 120 },
      path: `${API}/filters/user`,
      times: 20,
    });
    const reply = await setServerFilter(h, FILTER_IDS.ownedPrivate);
    expect(reply.content).toMatch(/^The site is busy\. Try again in/);
    expect(reply.content).not.toContain('private');
  });

  it('GIVEN the board refusing the list (403) THEN the filter is private AND the refusal is logged', async () => {
    h = await startHarness();
    h.booru.inject({ fault: { kind: 'status', status: 403 }, path: `${API}/filters/user`, times: 20 });
    const reply = await setServerFilter(h, FILTER_IDS.ownedPrivate);
    expect(reply.content).toContain(`Filter ${FILTER_IDS.ownedPrivate} is private`);
    expect(
      h.logLines().some((line) => line['msg'] === "the site refused the list of the key owner's filters"),
    ).toBe(true);
  });

  it('GIVEN the list answering THEN an own private filter is set', async () => {
    h = await startHarness();
    const reply = await setServerFilter(h, FILTER_IDS.ownedPrivate);
    expect(reply.content).toMatch(/^Filter set for /);
    expect(await storedFilters(h)).toMatchObject({
      filters: { [h.config.site.id]: FILTER_IDS.ownedPrivate },
    });
  });
});
