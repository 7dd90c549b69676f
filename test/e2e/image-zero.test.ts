/**
 * Image 0 exists (Derpibooru's first upload): the link recogniser accepts it, so every path treats it as
 * an id like any other. It used to reach the client's positive-id check and fail as an
 * internal error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, boardCalls } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import { outcome, unfurlReply } from '../support/waiting.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

function errorLines(from: number): unknown[] {
  return h
    .logLines()
    .slice(from)
    .filter((line) => typeof line['level'] === 'number' && line['level'] >= 50);
}

describe('image 0', () => {
  it('GIVEN a link to image 0 in chat THEN its card is the reply and nothing is logged as a fault', async () => {
    const from = h.logLines().length;
    const mark = h.booru.requests.length;
    const reply = await unfurlReply(h.discord, 'plain', `look ${h.booru.url}/images/0`);
    expect(reply.embeds[0]?.title).toBe('#0');
    expect(boardCalls(h.booru, mark, `${API}/images/0`)).toBe(1);
    expect(errorLines(from)).toEqual([]);
  });

  it.each(['0', '#0', '>>0', 'LINK'])(
    'GIVEN /image id:%s THEN image 0’s card, not an internal error',
    async (id) => {
      const from = h.logLines().length;
      const input = id === 'LINK' ? `${h.booru.url}/images/0` : id;
      const handle = h.discord.sendCommand({ name: 'image', options: { id: input }, channel: 'plain' });
      const seen = await outcome(h.discord, handle);
      expect(seen.kind).toBe('card');
      expect(seen.message.embeds[0]?.title).toBe('#0');
      expect(errorLines(from)).toEqual([]);
      expectCleanRun(h);
    },
  );
});
