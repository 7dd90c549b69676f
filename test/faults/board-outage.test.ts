/**
 * Fault suite: the board goes down for a couple of minutes and comes back. The board clients' clock is
 * moved forward instead of waiting: the breaker must open after five failures, send nothing at all
 * while open (commands, autocomplete and unfurls alike, each still answered in time), let exactly one
 * probe through after the cool-down, re-open with a longer cool-down when the probe fails, and close when
 * it succeeds, after which every feature works again. Production breaker settings (5 failures, 30 s,
 * doubling).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { API, boardCalls } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import type { Harness } from '../support/harness.js';
import { acknowledgedMs, eventuallyLogged, outcome, unfurlReply } from '../support/waiting.js';
import { useFaultHarness } from './fault-suite.js';

const DOWN_WITH_WAIT = /^The site is down or not answering right now\. Try again in (\d+) s\.$/;

let h: Harness;
const [A, B, C, D] = [IDS.fillerFirst, IDS.fillerFirst + 1, IDS.fillerFirst + 2, IDS.fillerFirst + 3];

useFaultHarness((started) => (h = started));
afterEach(() => {
  expectCleanRun(h);
});

const breakerState = () => h.registry.clients()[0]?.stats().breaker;

async function image(id: number) {
  const handle = h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' });
  const seen = await outcome(h.discord, handle);
  return { ...seen, text: seen.message.content };
}

describe('a board down for a while and back', () => {
  it('GIVEN the board failing THEN the breaker opens after five failed requests', async () => {
    h.booru.inject({ fault: { kind: 'status', status: 503 }, path: `${API}/` });
    const mark = h.booru.requests.length;
    const first = await image(A);
    expect(first.kind).toBe('error');
    expect(first.text).toMatch(/^The site is down or not answering right now\./);
    expect(boardCalls(h.booru, mark, `${API}/images/${A}`)).toBe(3);
    const second = await image(B);
    expect(second.kind).toBe('error');
    // Its third attempt met the open breaker, which names its cool-down.
    expect(second.text).toMatch(DOWN_WITH_WAIT);
    expect(boardCalls(h.booru, mark, `${API}/images/${B}`)).toBe(2);
    expect(breakerState()).toBe('open');
  });

  it('GIVEN the breaker open THEN commands, autocomplete and unfurls are answered at once and send nothing', async () => {
    const mark = h.booru.requests.length;
    const linesBefore = h.logLines().length;
    const slash = h.discord.sendCommand({ name: 'image', options: { id: String(C) }, channel: 'plain' });
    const featured = h.discord.sendCommand({ name: 'featured', channel: 'plain' });
    const search = h.discord.sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' });
    const typing = h.discord.sendAutocomplete({
      name: 'tag',
      options: { name: 'twi' },
      focused: 'name',
      channel: 'plain',
    });
    const posted = await h.discord.sendMessage({
      channel: 'plain',
      content: `${h.booru.url}/images/${D}`,
    });
    for (const handle of [slash, featured, search]) {
      const seen = await outcome(h.discord, handle);
      expect(seen.kind).toBe('error');
      const wait = Number(DOWN_WITH_WAIT.exec(seen.message.content)?.[1]);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(30);
    }
    expect(await acknowledgedMs(typing)).toBeLessThan(3000);
    expect(await typing.autocompleteChoices()).toEqual([]);
    await eventuallyLogged(h, (l) => l['msg'] === 'unfurl failed', 'the unfurl to give up', {
      since: linesBefore,
    });
    expect(posted.replies()).toEqual([]);
    expect(h.booru.requests.length - mark).toBe(0);
  });

  it('GIVEN the cool-down over but the board still down THEN exactly one probe goes, and the breaker re-opens for longer', async () => {
    h.boardClock.advance(30_000);
    expect(breakerState()).toBe('half-open');
    const mark = h.booru.requests.length;
    const probe = await image(C);
    expect(probe.kind).toBe('error');
    expect(h.booru.requests.length - mark).toBe(1);
    expect(breakerState()).toBe('open');
    const refused = await image(D);
    const wait = Number(DOWN_WITH_WAIT.exec(refused.text)?.[1]);
    // The cool-down doubled: 60 s.
    expect(wait).toBeGreaterThan(30);
    expect(wait).toBeLessThanOrEqual(60);
    expect(h.booru.requests.length - mark).toBe(1);
  });

  it('GIVEN the board back after the longer cool-down THEN one probe closes the breaker and every feature works', async () => {
    h.booru.clearFaults();
    h.boardClock.advance(60_000);
    expect(breakerState()).toBe('half-open');
    const mark = h.booru.requests.length;
    const probe = await image(C);
    expect(probe.kind).toBe('card');
    expect(h.booru.requests.length - mark).toBe(1);
    expect(breakerState()).toBe('closed');

    for (const id of [A, B, D]) expect((await image(id)).kind).toBe('card');
    const search = await outcome(
      h.discord,
      h.discord.sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' }),
    );
    expect(search.kind).toBe('card');
    const choices = await h.discord
      .sendAutocomplete({ name: 'tag', options: { name: 'twi' }, focused: 'name', channel: 'plain' })
      .autocompleteChoices();
    expect(choices.map((c) => c.value)).toContain('twilight sparkle');
    const reply = await unfurlReply(h.discord, 'plain', `${h.booru.url}/images/${D}`);
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${D}`);
  });
});
