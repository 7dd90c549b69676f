/**
 * A reverse search by FILE has the board analyse the member's picture before it answers, so its time is
 * the member's choice, as a URL's is (member-caused-faults.test.ts). It gets what the
 * URL search got: one attempt (a retry would upload the file again), its own timeout, and no timeout or
 * reset of it counted by the breaker; so two slow file searches cannot open the breaker for every server.
 *
 * Timings are scaled down: the board answers file searches after 900 ms, the bot gives a file search
 * 300 ms here (60 s in production) and every other request 300 ms per attempt, with the production's three
 * attempts and its breaker (five failures).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { API, boardCalls } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import { outcome } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    registry: {
      transport: { attemptTimeoutMs: 300, reverseFileTimeoutMs: 300, baseDelayMs: 1, maxDelayMs: 5 },
    },
  });
});
afterAll(async () => {
  await h.close();
});

it('GIVEN two members reverse-searching files the board is slow on THEN one board request each, and the breaker stays closed for everyone else', async () => {
  const image = await h.registry.client(h.config.site).image(IDS.safe);
  if (image.kind !== 'image') throw new Error('expected a visible image');
  const bytes = Buffer.from(await (await fetch(image.representations.full)).arrayBuffer());
  h.booru.inject({ fault: { kind: 'latency', ms: 900 }, path: `${API}/search/reverse` });
  const mark = h.booru.requests.length;
  const members = [h.discord.guild.memberId, h.discord.guild.otherMemberId];
  const handles = members.map((userId, i) =>
    h.discord.sendCommand({
      name: 'reverse',
      channel: 'plain',
      userId,
      attachments: [
        {
          option: 'file',
          filename: `heavy${i}.png`,
          contentType: 'image/png',
          // Another file each (one more byte): no cache or coalescing joins the two searches.
          data: Buffer.concat([bytes, Buffer.from([i])]),
        },
      ],
    }),
  );
  for (const handle of handles) {
    const seen = await outcome(h.discord, handle);
    expect(seen.kind).toBe('error');
    expect(seen.message.content).toMatch(/not answering/);
  }
  expect(boardCalls(h.booru, mark, `${API}/search/reverse`)).toBe(2);
  h.booru.clearFaults();

  expect(h.registry.clients().map((client) => client.stats().breaker)).not.toContain('open');
  const fresh = h.booru.addImage({ tags: ['safe', 'fresh'] });
  const seen = await outcome(
    h.discord,
    h.discord.sendCommand({
      name: 'image',
      options: { id: String(fresh) },
      channel: 'ageRestricted',
      userId: h.discord.guild.ownerId,
    }),
  );
  expect(seen.kind).toBe('card');
  expectCleanRun(h);
});
