/**
 * How the router treats Discord refusing its calls: a token that expired or was answered elsewhere is one
 * warning and no further call with it; a call Discord did not take is a warning with Discord's code and
 * status (not an unexpected error), and one private follow-up while the token still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle, RecordedRequest } from '../fakes/discord/index.js';
import { IDS } from '../fakes/philomena/index.js';
import { startHarness, type Harness } from '../support/harness.js';

const API = '/api/v1/json';
let h: Harness;
let offset = 0;
/** The local Discord's clock: moved forward to expire tokens and answer windows. */
const discordNow = (): number => Date.now() + offset;
let nextId: number = IDS.fillerFirst;
const freshId = (): number => nextId++;

beforeAll(async () => {
  h = await startHarness({ discord: { now: discordNow } });
});
afterAll(async () => {
  await h.close();
});

const sendImage = (id: number): InteractionHandle =>
  h.discord.sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' });

/** Every REST call the bot made with this interaction's token (callback, edits, deletes, follow-ups). */
function tokenCalls(handle: InteractionHandle): RecordedRequest[] {
  return h.discord.requests.filter((r) => r.path.includes(handle.token));
}

function linesOf(handle: InteractionHandle): Record<string, unknown>[] {
  return h.logLines().filter((l) => l['interactionId'] === handle.id);
}

async function waitForLine(
  handle: InteractionHandle,
  match: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return h.discord.waitFor(() => linesOf(handle).find(match), 10_000);
}

const WARN = 40;
const ERROR = 50;

describe('a dead interaction token', () => {
  it('GIVEN the token expired while the board answered THEN one warning names the interaction, command and code, and nothing more is sent with it', async () => {
    const id = freshId();
    h.booru.inject({ fault: { kind: 'latency', ms: 300 }, path: `${API}/images/${id}`, times: 1 });
    const handle = sendImage(id);
    await handle.acknowledged;
    offset += 16 * 60_000;
    const line = await waitForLine(handle, (l) => l['discordCode'] === 50027);
    expect(line).toMatchObject({ level: WARN, command: 'image', discordCode: 50027, discordStatus: 401 });
    const lines = linesOf(handle);
    expect(lines.filter((l) => l['discordCode'] !== undefined)).toHaveLength(1);
    expect(lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= ERROR)).toEqual([]);
    // The defer, then the one refused edit: no delete, no follow-up.
    expect(tokenCalls(handle).map((r) => r.method)).toEqual(['POST', 'PATCH']);
  });

  it('GIVEN the interaction arrives after the answer window THEN the refused acknowledgement is one warning and no second callback', async () => {
    const handle = sendImage(freshId());
    offset += 3_500;
    const line = await waitForLine(handle, (l) => l['discordCode'] === 10062);
    expect(line).toMatchObject({ level: WARN, command: 'image', discordStatus: 404 });
    expect(linesOf(handle).filter((l) => typeof l['level'] === 'number' && l['level'] >= ERROR)).toEqual([]);
    expect(tokenCalls(handle).map((r) => r.method)).toEqual(['POST']);
  });

  it('GIVEN Discord says the interaction was already acknowledged THEN the bot logs one warning and sends nothing more', async () => {
    const handle = sendImage(freshId());
    h.discord.inject({
      route: new RegExp(`/interactions/${handle.id}/`),
      method: 'POST',
      status: 400,
      body: { code: 40060, message: 'Interaction has already been acknowledged.' },
      times: 1,
    });
    const line = await waitForLine(handle, (l) => l['discordCode'] === 40060);
    expect(line).toMatchObject({ level: WARN, command: 'image', discordStatus: 400 });
    expect(tokenCalls(handle)).toHaveLength(1);
  });
});

describe('a Discord call that fails on every retry', () => {
  it('GIVEN the reply edit failing with 500 every time THEN it is logged as a delivery failure with the status, and the member gets one private follow-up', async () => {
    const id = freshId();
    const handle = sendImage(id);
    h.discord.inject({
      route: new RegExp(`/webhooks/\\d+/${handle.token}/messages/@original$`),
      method: 'PATCH',
      status: 500,
      times: 4,
    });
    const followUp = await h.discord.waitFor(() => handle.followUps()[0], 10_000);
    expect(followUp.content).toBe('Something went wrong. Please try again later.');
    expect(followUp.flags & 64).toBe(64);
    const lines = linesOf(handle);
    expect(lines.find((l) => l['msg'] === 'Discord delivery failure')).toMatchObject({
      level: WARN,
      command: 'image',
      discordStatus: 500,
    });
    expect(lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= ERROR)).toEqual([]);
    expect(
      tokenCalls(handle).filter((r) => r.method === 'POST' && !r.path.includes('/callback')),
    ).toHaveLength(1);
    // The failed call's URL (in err.url and the stack) holds the interaction token: never in a log line.
    expect(JSON.stringify(lines)).toContain('/webhooks/');
    expect(JSON.stringify(lines)).not.toContain(handle.token);
  });

  it('GIVEN the next command after these faults THEN it is served normally', async () => {
    const id = freshId();
    const reply = await sendImage(id).finalReply(10_000);
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${id}`);
  });
});

describe('a delivery failure near the end of the token life', () => {
  it('GIVEN the interaction is nearly 15 minutes old by its snowflake when the edit fails THEN the failure is logged and no follow-up is tried', async () => {
    // This local Discord's clock runs 14 min 45 s behind: every interaction it creates already looks old.
    const late = await startHarness({ discord: { now: () => Date.now() - (14 * 60_000 + 45_000) } });
    try {
      const handle = late.discord.sendCommand({
        name: 'image',
        options: { id: String(IDS.safe) },
        channel: 'plain',
      });
      late.discord.inject({
        route: new RegExp(`/webhooks/\\d+/${handle.token}/messages/@original$`),
        method: 'PATCH',
        status: 500,
        times: 4,
      });
      const line = await late.discord.waitFor(
        () =>
          late
            .logLines()
            .find((l) => l['interactionId'] === handle.id && l['msg'] === 'Discord delivery failure'),
        10_000,
      );
      expect(line).toMatchObject({ level: WARN, discordStatus: 500 });
      await late.discord.waitFor(
        () =>
          late
            .logLines()
            .find((l) => l['interactionId'] === handle.id && String(l['msg']).includes('no longer usable')),
        10_000,
      );
      expect(handle.followUps()).toEqual([]);
      expect(late.discord.requests.filter((r) => r.path.includes(handle.token)).map((r) => r.method)).toEqual(
        ['POST', 'PATCH', 'PATCH', 'PATCH', 'PATCH'],
      );
    } finally {
      await late.close();
    }
  });
});
