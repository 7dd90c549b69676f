/**
 * Reverse search costs the board more than anything else, and part of that cost is the member's: with
 * `/reverse url:` the board downloads the member's URL, so a slow URL must not open the site's circuit
 * breaker for every server, and each member has one reverse search in flight at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSourceOnAttachment } from '../support/messages.js';
import { ONE_AT_A_TIME_TEXT } from '../../commands/shared/reverse-gate.js';
import { UPLOAD_TIMED_OUT_TEXT } from '../../commands/reverse/results.js';
import { IDS } from '../fakes/philomena/index.js';
import { API, boardCalls } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import { outcome } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let stalledUrl: string;
beforeAll(async () => {
  // The board answers reverse searches after 1.5 s, as if the member's URL trickled in; the bot gives a
  // reverse search by URL 300 ms here (20 s in production), and one by file 600 ms (60 s in production).
  h = await startHarness({
    registry: {
      transport: {
        reverseUrlTimeoutMs: 300,
        reverseFileTimeoutMs: 600,
        attemptTimeoutMs: 600,
        maxAttempts: 1,
      },
    },
  });
  h.booru.inject({ fault: { kind: 'latency', ms: 1500 }, path: `${API}/search/reverse` });
  // An attachment on the local Discord's origin whose host sends the headers and one byte, then stalls.
  stalledUrl = h.discord.cdnFile('pic.png', 'stall');
});
afterAll(async () => {
  await h.close();
});

function reverse(url: string, userId: string) {
  return h.discord.sendCommand({ name: 'reverse', options: { url }, channel: 'plain', userId });
}

describe('reverse search by URL', () => {
  it('GIVEN six slow reverse searches by URL THEN one board request each, no retry, and the breaker stays closed for everyone else', async () => {
    const mark = h.booru.requests.length;
    const members = [h.discord.guild.memberId, h.discord.guild.otherMemberId, h.discord.guild.ownerId];
    for (let round = 0; round < 2; round += 1) {
      const handles = members.map((member, i) => reverse(`https://slow.example/${round}-${i}.png`, member));
      for (const handle of handles) {
        const seen = await outcome(h.discord, handle);
        expect(seen.kind).toBe('error');
      }
    }
    expect(boardCalls(h.booru, mark, `${API}/search/reverse`)).toBe(6);
    const image = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain' })
      .finalReply();
    expect(image.embeds.length).toBeGreaterThan(0);
    const breakers = h.registry.clients().map((client) => client.stats().breaker);
    expect(breakers).not.toContain('open');
    expectCleanRun(h);
  });

  it('GIVEN a member starting a second reverse search while the first runs THEN the second is refused at once, the first still answered', async () => {
    const member = h.discord.guild.memberId;
    const mark = h.booru.requests.length;
    const first = reverse('https://slow.example/first.png', member);
    // The first one is running once the board has it.
    await h.discord.waitFor(() => boardCalls(h.booru, mark, `${API}/search/reverse`) > 0 || undefined);
    const second = await outcome(h.discord, reverse('https://slow.example/second.png', member));
    expect(second.kind).toBe('error');
    expect(second.message.content).toBe(ONE_AT_A_TIME_TEXT);
    expect((await outcome(h.discord, first)).kind).toBe('error');
  });
});

describe('reverse search by file', () => {
  it('GIVEN the attachment stalling mid-download THEN the member is told the upload took too long, nothing is logged as a fault, and the breaker is untouched', async () => {
    const from = h.logLines().length;
    const reply = await findSourceOnAttachment(h.discord, stalledUrl);
    expect(reply.content).toBe(UPLOAD_TIMED_OUT_TEXT);
    const lines = h.logLines().slice(from);
    expect(lines.filter((line) => typeof line['level'] === 'number' && line['level'] >= 50)).toEqual([]);
    expect(h.registry.clients().map((client) => client.stats().breaker)).not.toContain('open');
  });
});
