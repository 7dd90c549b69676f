import { afterEach, describe, expect, it } from 'vitest';
import { customIds } from '../support/messages.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('paging buttons age out', () => {
  it('GIVEN a Next click 16 minutes after the search THEN "expired", the buttons go, the board is not asked', async () => {
    h = await startHarness();
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    const next = customIds(first).find((id) => id.startsWith('srch:next:'))!;
    h.botClock.advance(16 * 60 * 1000);
    const searchesBefore = h.booru.requests.filter((r) => r.path.endsWith('/search/images')).length;
    const click = h.discord.sendButton({ customId: next, message: first });
    await click.acknowledged;
    const followUp = await h.discord.waitFor(() => click.followUps()[0]);
    expect(followUp.content).toMatch(/expired/);
    expect(h.discord.message(first.id)!.components).toEqual([]);
    expect(h.booru.requests.filter((r) => r.path.endsWith('/search/images'))).toHaveLength(searchesBefore);
    expect(h.discord.violations).toEqual([]);
  });
});
