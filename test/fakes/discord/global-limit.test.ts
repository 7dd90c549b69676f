/**
 * The local Discord's global rate limit, both sides of Discord's rule (global-limit.ts): 50 requests in a
 * one-second window per bot token on the bound routes, 429 `global` past them; the interaction callback
 * and the app's interaction webhook never counted nor refused. Raw requests over 127.0.0.1 on a clock that
 * stands still, so "in one second" is exact and nothing here depends on how fast the machine is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.js';

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A clock that moves only when told. */
function standingClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_800_000_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

async function call(
  f: FakeDiscord,
  method: string,
  route: string,
  body: unknown,
  auth: boolean,
): Promise<Answer> {
  const response = await fetch(`${f.apiUrl}/v10${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(auth ? { authorization: `Bot ${f.token}` } : {}),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const NO_PINGS = { parse: [] };

/** `n` channel posts one after another, spread over three channels so no channel's own bucket binds. */
async function posts(f: FakeDiscord, n: number, from = 0): Promise<Answer[]> {
  const { plain, ageRestricted, spoiler } = f.guild.channels;
  const channels = [plain, ageRestricted, spoiler];
  const answers: Answer[] = [];
  for (let i = from; i < from + n; i++) {
    const channel = channels[i % channels.length] ?? plain;
    answers.push(
      await call(
        f,
        'POST',
        `/channels/${channel}/messages`,
        { content: `post ${i}`, allowed_mentions: NO_PINGS },
        true,
      ),
    );
  }
  return answers;
}

const statuses = (answers: readonly Answer[]): number[] => answers.map((a) => a.status);
const globalViolations = (f: FakeDiscord) => f.violations.filter((v) => v.kind === 'global-limit');

describe('fake Discord: the global rate limit', () => {
  it('GIVEN a burst of 60 channel posts in one second THEN 50 go through and the other 10 get 429 global, as Discord answers it', async () => {
    const clock = standingClock();
    fake = await startFakeDiscord({ now: clock.now });
    const answers = await posts(fake, 60);
    expect(statuses(answers.slice(0, 50))).toEqual(Array(50).fill(200));
    expect(statuses(answers.slice(50))).toEqual(Array(10).fill(429));
    const refused = answers[50];
    expect(refused?.headers.get('x-ratelimit-global')).toBe('true');
    expect(refused?.headers.get('x-ratelimit-scope')).toBe('global');
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(refused?.body).toEqual({
      message: 'You are being rate limited.',
      retry_after: 1,
      global: true,
      code: 0,
    });
    // Refused posts were not made.
    const { plain, ageRestricted, spoiler } = fake.guild.channels;
    const made = [plain, ageRestricted, spoiler].flatMap((channel) => fake?.channelMessages(channel) ?? []);
    expect(made).toHaveLength(50);
    expect(globalViolations(fake)).toHaveLength(10);

    // The next second has 50 places again.
    clock.advance(1000);
    expect(statuses(await posts(fake, 50, 60))).toEqual(Array(50).fill(200));
    expect(statuses(await posts(fake, 1, 110))).toEqual([429]);
  });

  it('GIVEN the second already used up by channel posts THEN 200 interactions are still acknowledged and their answers edited in, none refused', async () => {
    const clock = standingClock();
    const started = await startFakeDiscord({ now: clock.now });
    fake = started;
    expect(statuses(await posts(fake, 50))).toEqual(Array(50).fill(200));
    const handles = Array.from({ length: 200 }, () =>
      started.sendCommand({ name: 'image', options: { id: 1 }, channel: 'plain' }),
    );
    const answers: Answer[] = [];
    for (const [i, handle] of handles.entries()) {
      // Interaction routes are exempt whatever Authorization they carry: half go with the bot's.
      answers.push(
        await call(
          fake,
          'POST',
          `/interactions/${handle.id}/${handle.token}/callback`,
          { type: 5 },
          i % 2 === 0,
        ),
      );
    }
    for (const [i, handle] of handles.entries()) {
      answers.push(
        await call(
          fake,
          'PATCH',
          `/webhooks/${fake.applicationId}/${handle.token}/messages/@original`,
          { content: `answer ${i}`, allowed_mentions: NO_PINGS },
          i % 2 === 1,
        ),
      );
    }
    expect(statuses(answers).filter((s) => s < 200 || s >= 300)).toEqual([]);
    expect((await handles[199]?.finalReply())?.content).toBe('answer 199');
    expect(globalViolations(fake)).toEqual([]);
    // The bound routes are still at their limit.
    expect(statuses(await posts(fake, 1, 50))).toEqual([429]);
  });

  it('GIVEN a webhook route under an id that is not the application’s, with the bot’s Authorization THEN it counts toward the limit like any bound route', async () => {
    const clock = standingClock();
    fake = await startFakeDiscord({ now: clock.now });
    await posts(fake, 50);
    const answer = await call(
      fake,
      'POST',
      '/webhooks/123456789012345678/some-channel-webhook-token',
      { content: 'x' },
      true,
    );
    expect(answer.status).toBe(429);
    expect(answer.headers.get('x-ratelimit-global')).toBe('true');
  });

  it('GIVEN globalRateLimit off THEN 60 posts in one second all go through', async () => {
    const clock = standingClock();
    fake = await startFakeDiscord({ now: clock.now, globalRateLimit: false });
    expect(statuses(await posts(fake, 60))).toEqual(Array(60).fill(200));
    expect(globalViolations(fake)).toEqual([]);
  });
});
