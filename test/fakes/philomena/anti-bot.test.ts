/**
 * The local board behaves like the real one where Philomena's openapi.yaml says how (docs/board-behaviour.md):
 * its anti-bot block after the 501, and the shapes the recordings do not show (a topic's author, DNP
 * entries, an upload's answer, the order of filter search).
 */
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_KEY,
  FORUM,
  REAL_ANTI_BOT_TIMINGS,
  TAG_SLUGS,
  startFakePhilomena,
  type FakePhilomena,
} from './index.js';

let booru: FakePhilomena;
beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterAll(async () => {
  await booru.close();
});
beforeEach(() => {
  booru.reset();
});

async function get(path: string): Promise<{ status: number; text: string }> {
  const res = await request(`${booru.url}${path}`);
  return { status: res.statusCode, text: await res.body.text() };
}

const api = (path: string) => get(`/api/v1/json${path}`);

describe('the anti-bot layer', () => {
  it('GIVEN a request within 5 s of the 501 THEN empty 500s for 15 minutes, every request restarting them; the files (the CDN) are left alone', async () => {
    booru.inject({ fault: { kind: 'anti-bot' }, path: '/api/v1/json/forums', times: 1 });
    expect((await api('/forums')).status).toBe(501);
    const blocked = await api('/images/1');
    expect(blocked).toEqual({ status: 500, text: '' });
    // (Its clock is the real one plus what the test moved: a few ms pass between the two.)
    expect(booru.antiBot.blockedMs()).toBeGreaterThan(REAL_ANTI_BOT_TIMINGS.blockMs - 60_000);
    expect(booru.antiBot.blockedMs()).toBeLessThanOrEqual(REAL_ANTI_BOT_TIMINGS.blockMs);

    // Ten minutes later, one request: the 15 minutes start again from it.
    booru.antiBot.advance(10 * 60_000);
    expect(await api('/forums')).toEqual({ status: 500, text: '' });
    booru.antiBot.advance(10 * 60_000);
    expect((await api('/forums')).status).toBe(500);
    expect(booru.antiBot.blockedRequests()).toBe(3);
    expect((await get('/samples/cdn.png')).status).toBe(200);

    // 15 quiet minutes: served again.
    booru.antiBot.advance(15 * 60_000);
    expect(booru.antiBot.blockedMs()).toBe(0);
    expect((await api('/forums')).status).toBe(200);
  });

  it('GIVEN the caller keeps quiet for the 5 s after the 501 THEN no block', async () => {
    booru.inject({ fault: { kind: 'anti-bot' }, times: 1 });
    expect((await api('/forums')).status).toBe(501);
    booru.antiBot.advance(REAL_ANTI_BOT_TIMINGS.graceMs);
    expect((await api('/forums')).status).toBe(200);
    expect(booru.antiBot.blockedRequests()).toBe(0);
  });

  it('GIVEN scaled timings THEN they apply, and reset() brings back the real ones and no block', async () => {
    booru.antiBot.configure({ graceMs: 60_000, blockMs: 120_000 });
    booru.inject({ fault: { kind: 'anti-bot' }, times: 1 });
    await api('/forums');
    booru.antiBot.advance(50_000);
    expect((await api('/forums')).status).toBe(500);
    expect(booru.antiBot.blockedMs()).toBeGreaterThan(60_000);
    expect(booru.antiBot.blockedMs()).toBeLessThanOrEqual(120_000);
    booru.reset();
    expect(booru.antiBot.blockedMs()).toBe(0);
    expect((await api('/forums')).status).toBe(200);
  });
});

describe("shapes from Philomena's openapi.yaml", () => {
  it('GIVEN an anonymous topic THEN its author is the anonymous name, never null', async () => {
    const locked = JSON.parse((await api(`/forums/${FORUM.dis}/topics/${FORUM.lockedTopic}`)).text);
    expect(locked.topic).toMatchObject({
      user_id: null,
      author: expect.stringMatching(/^Background Pony #/),
    });
    const list = JSON.parse((await api(`/forums/${FORUM.dis}/topics`)).text);
    for (const topic of list.topics) expect(typeof topic.author).toBe('string');
  });

  it('GIVEN a tag with a DNP entry THEN the entry has id, dnp_type, conditions, reason and created_at', async () => {
    const tag = JSON.parse((await api(`/tags/${encodeURIComponent(TAG_SLUGS.artistMulti)}`)).text).tag;
    expect(tag.dnp_entries).toEqual([
      {
        id: expect.any(Number),
        dnp_type: 'With Permission Only',
        conditions: '',
        reason: 'Ask first',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    ]);
  });

  it('GIVEN an accepted upload THEN the answer is an ImageResponse: image and interactions', async () => {
    const res = await request(`${booru.url}/api/v1/json/images?key=${FAKE_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${booru.url}/samples/openapi-shape.png`,
        image: { tag_input: 'safe, pony, artist:tester' },
      }),
    });
    expect(res.statusCode).toBe(200);
    const body = (await res.body.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['image', 'interactions']);
    expect(body['interactions']).toEqual([]);
  });

  it('GIVEN a filter search THEN the filters come by lower-cased name, then newest id first', async () => {
    const body = JSON.parse((await api('/search/filters?q=*&per_page=50')).text);
    const names: string[] = body.filters.map((f: { name: string }) => f.name.toLowerCase());
    expect(names.length).toBeGreaterThan(2);
    expect(names).toEqual([...names].sort());
  });
});
