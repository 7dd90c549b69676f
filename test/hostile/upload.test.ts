/**
 * Hostile upload input through the real bot, the local Discord and the local board (issue 22 §2, Proof):
 * `/upload` options and the "Upload to board" form's fields, with URL schemes (javascript:, file:, data:,
 * ftp:, credentials, IDN, huge), huge and control-character tags, sources and descriptions.
 *
 * Each run checks: no crash, acknowledged in time and nothing sent broke Discord's rules (bot-run.ts), a
 * short private answer, nothing at error level in the log, and the board heard only the member's upload
 * (POST /images, with the member's own key and no other) and the card's keyless reads; the bot fetches
 * nothing itself (test/setup.ts refuses any address but this machine's, which would be logged as a fault).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FAKE_KEY, type RecordedRequest } from '../fakes/philomena/index.js';
import { API } from '../support/board.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { linkKey } from '../support/uploads.js';
import { hostileText, hostileTextUpTo, wellFormed } from './arbitraries.js';
import {
  boardRequestsSince,
  errorLogsSince,
  isEphemeral,
  mark,
  outcome,
  runProblems,
  type Mark,
} from './bot-run.js';

const RUNS = 25;
const SECRET = randomBytes(32).toString('base64');

let h: Harness;
let key: string;
/** Uploads that reached the board over every run: the checks above must have seen some. */
let posted = 0;
let member: string;
beforeAll(async () => {
  h = await startHarness({
    registry: { budget: ROOMY_BUDGET },
    env: { MEMBER_KEY_SECRET: SECRET, UPLOADS: 'on', UPLOADS_PER_MEMBER_HOUR: '100' },
  });
  member = h.discord.guild.memberId;
  key = h.booru.addAccount({ name: 'HostileUploader' }).key;
  await linkKey(h, member, key);
});
afterAll(async () => {
  await h.close();
  expect(posted, 'no run reached the board').toBeGreaterThan(0);
});

/** Links a member might paste, good and bad; `@BOORU@` is the local board's own samples. */
const urls = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'javascript:alert(1)',
      'JaVaScRiPt:alert(document.cookie)',
      'file:///etc/passwd',
      'data:image/png;base64,iVBORw0KGgo=',
      'ftp://art.example/a.png',
      'http://user:pass@127.0.0.1/a.png',
      'https://:@art.example/a.png',
      'https://пример.рф/картинка.png',
      'https://xn--80ak6aa92e.com/a.png',
      'http://[::1]:1/a.png',
      'https:///a.png',
      '//art.example/a.png',
      `https://art.example/${'a'.repeat(1_990)}`,
      '@BOORU@/samples/hostile.png',
      '@BOORU@/samples/hostile.txt',
      '@BOORU@/api/v1/json/images?key=stolen',
    ),
  },
  { weight: 2, arbitrary: hostileTextUpTo(2_000) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('https://', 'http://'), hostileText(4)).map(([s, t]) => s + t),
  },
);

const tags = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('safe, pony, artist:x', 'explicit, grimdark, grotesque', 'safe') },
  { weight: 3, arbitrary: hostileTextUpTo(6_000) },
  { weight: 1, arbitrary: hostileText(6).map((t) => `safe, pony, ${t}`) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 300 })
      .map((n) => Array.from({ length: n }, (_, i) => `t${i}`).join(',')),
  },
);

const sources = fc.oneof(fc.constant(''), urls, hostileTextUpTo(2_000));
const descriptions = fc.oneof(fc.constant(''), hostileTextUpTo(6_000));

/** Cut to a field's bound and made well-formed; never empty where Discord requires text. */
const fit = (text: string, max: number, required: boolean): string => {
  const cut = wellFormed(text.replaceAll('@BOORU@', h.booru.url)).slice(0, max);
  const whole = wellFormed(cut);
  return required && whole.trim() === '' ? 'x' : whole;
};

/** Whether the bot sent `request` (its User-Agent), not the board fetching the member's link from itself. */
const fromTheBot = (request: RecordedRequest): boolean =>
  String(request.headers['user-agent'] ?? '').startsWith('philomena-bot');

/** What may reach the board in a run: the member's upload with their key, and the card's keyless reads. */
function expectOnlyTheMembersUpload(requests: readonly RecordedRequest[]): void {
  for (const request of requests.filter(fromTheBot)) {
    if (request.method === 'POST') {
      posted += 1;
      expect(request.path).toBe(`${API}/images`);
      expect(request.key).toBe(key);
      continue;
    }
    expect(request.method).toBe('GET');
    expect(request.path, request.path).toMatch(/^\/api\/v1\/json\/(images\/\d+|filters\/\d+)$/);
    expect(request.key).toBeUndefined();
  }
  // What the board fetched itself is only ever the member's link: it never carries their key.
  for (const request of requests.filter((r) => !fromTheBot(r))) expect(request.key).not.toBe(key);
}

async function checkRun(answer: RecordedMessage, from: Mark): Promise<void> {
  expect(isEphemeral(answer), `answer: ${JSON.stringify(answer.content)}`).toBe(true);
  // Short: a card, or a few sentences.
  expect((answer.content ?? '').length).toBeLessThanOrEqual(2_000);
  expect((answer.content ?? '').split('\n').length).toBeLessThanOrEqual(12);
  expect(runProblems(h, from)).toEqual([]);
  expect(errorLogsSince(h, from).map((line) => line['msg'])).toEqual([]);
  expectOnlyTheMembersUpload(boardRequestsSince(h, from));
  expect(JSON.stringify(h.discord.requests.slice(from.discord))).not.toContain(key);
  expect(h.booru.requests.slice(from.booru).some((r) => r.key === FAKE_KEY)).toBe(false);
}

describe('/upload with hostile options', () => {
  it('GIVEN any url, tags, source and description THEN a short private answer, and only the member’s upload reaches the board', async () => {
    await fc.assert(
      fc.asyncProperty(urls, tags, sources, descriptions, async (url, tagText, source, description) => {
        const from = mark(h);
        const options: Record<string, string> = {
          url: fit(url, 2_000, true),
          tags: fit(tagText, 6_000, true),
        };
        const givenSource = fit(source, 2_000, false);
        const givenDescription = fit(description, 6_000, false);
        if (givenSource !== '') options['source'] = givenSource;
        if (givenDescription !== '') options['description'] = givenDescription;
        const handle = h.discord.sendCommand({ name: 'upload', options, channel: 'plain', userId: member });
        await checkRun(await outcome(h, handle), from);
      }),
      { numRuns: RUNS, examples: [['@BOORU@/samples/hostile-example.png', 'safe, pony, artist:x', '', '']] },
    );
  });
});

describe('the Upload to board form with hostile fields', () => {
  it('GIVEN any tags, source and description typed in the form THEN a short private answer, and only the member’s upload reaches the board', async () => {
    await fc.assert(
      fc.asyncProperty(tags, sources, descriptions, async (tagText, source, description) => {
        const from = mark(h);
        const picture = `${h.booru.url}/samples/hostile-form.png`;
        const opened = h.discord.sendMessageCommand({
          name: 'Upload to board',
          channel: 'plain',
          userId: member,
          targetMessage: { content: 'x', embeds: [{ type: 'image', thumbnail: { url: picture } }] },
        });
        expect((await opened.acknowledged).type).toBe(9);
        const values = {
          tags: fit(tagText, 4_000, true),
          source: fit(source, 2_000, false),
          description: fit(description, 4_000, false),
        };
        const submitted = h.discord.submitModal({ opener: opened, values });
        await checkRun(await outcome(h, submitted), from);
      }),
      { numRuns: RUNS, examples: [['safe, pony, artist:x', 'https://art.example/x', 'A description']] },
    );
  });
});
