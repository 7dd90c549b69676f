/**
 * One member cannot use up the search budget every server shares. With the board's real
 * budget (20 searches per 10 s per site), one member typing 40 different prefixes used to fill the search
 * window and push another member's /search back by about 10 s. Autocomplete now gets a small fixed share
 * of the window and answers with no choices rather than queueing, so the other member's search finds the
 * window open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, boardCalls, boardRequests } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  // The default budget of the board (no ROOMY_BUDGET), and no member cooldown: only the budget decides.
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const PREFIXES = Array.from({ length: 40 }, (_, i) => `p${String.fromCharCode(97 + (i % 26))}${i}`);

describe('autocomplete cannot crowd out searches', () => {
  it('GIVEN one member sending 40 different autocompletes at once THEN at most the small share reaches the board, each is answered, and another member’s /search goes out with the window still open', async () => {
    const mark = h.booru.requests.length;
    const typing = PREFIXES.map((prefix) =>
      h.discord.sendAutocomplete({
        name: 'search',
        options: { query: prefix },
        focused: 'query',
        channel: 'plain',
        userId: h.discord.guild.memberId,
      }),
    );
    const answered = await Promise.all(typing.map((handle) => handle.autocompleteChoices()));
    expect(answered).toHaveLength(PREFIXES.length);
    const suggestions = boardCalls(h.booru, mark, `${API}/search/tags`);
    expect(suggestions).toBeGreaterThan(0);
    // The share: at most 4 of the 20 search slots of a 10 s window.
    expect(suggestions).toBeLessThanOrEqual(4);

    const reply = await h.discord
      .sendCommand({
        name: 'search',
        options: { query: 'pony' },
        channel: 'plain',
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(reply.embeds.length).toBeGreaterThan(0);
    expect(boardRequests(h.booru, mark, `${API}/search/images`)).toHaveLength(1);
    expectCleanRun(h);
  });
});
