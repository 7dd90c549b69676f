import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkBoardSettings,
  checkFloor,
  FLOOR_DEFAULTS_OFF,
  KEY_NOT_USED,
} from '../../src/startup-checks.js';
import { createLogger } from '../../src/logger.js';
import { createClientRegistry, type ClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite } from '../../src/philomena/sites.js';
import { FAKE_KEY, FILTER_IDS, startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';
import { parseLogLines } from '../support/harness.js';

let booru: FakePhilomena;
let registry: ClientRegistry;
beforeAll(async () => {
  booru = await startFakePhilomena();
  const lines: string[] = [];
  registry = createClientRegistry({
    defaultSite: resolveSite(booru.url),
    cache: new Keyv(),
    logger: createLogger({
      level: 'silent',
      destination: { write: (line: string) => void lines.push(line) },
    }),
  });
});
afterAll(async () => {
  await registry.close();
  await booru.close();
});

async function check(apiKey: string | undefined, filterId: number | undefined) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets: [apiKey],
    destination: { write: (line: string) => void lines.push(line) },
  });
  await checkBoardSettings({ apiKey, filterId, client: registry.client(resolveSite(booru.url)), logger });
  return parseLogLines(lines);
}

describe('start-up checks of the board settings', () => {
  it('GIVEN a key THEN one warning says it is not used, without the key', async () => {
    const lines = await check(FAKE_KEY, undefined);
    expect(lines.map((line) => line['msg'])).toEqual([KEY_NOT_USED]);
    expect(JSON.stringify(lines)).not.toContain(FAKE_KEY);
  });

  it.each([
    ['a private filter', FILTER_IDS.ownedPrivate],
    ['an unknown filter', 987654],
  ])('GIVEN BOORU_FILTER_ID of %s THEN a warning says the board ignores it', async (_name, filterId) => {
    const lines = await check(undefined, filterId);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.['level']).toBe(40);
    expect(String(lines[0]?.['msg'])).toContain(
      `BOORU_FILTER_ID ${filterId} is not a public or system filter`,
    );
  });

  it.each([
    ['a system filter', FILTER_IDS.default],
    ['a public filter', FILTER_IDS.public],
  ])('GIVEN BOORU_FILTER_ID of %s THEN no warning', async (_name, filterId) => {
    const lines = await check(undefined, filterId);
    expect(lines.filter((line) => Number(line['level']) >= 40)).toEqual([]);
  });

  it('GIVEN the board down THEN an info line, no warning and no throw', async () => {
    booru.inject({ fault: { kind: 'status', status: 503 }, path: '/api/v1/json/filters/', times: 10 });
    const lines = await check(undefined, FILTER_IDS.maximumSpoilers);
    expect(lines.filter((line) => Number(line['level']) >= 40)).toEqual([]);
    expect(lines.some((line) => line['msg'] === 'could not check BOORU_FILTER_ID with the site now')).toBe(
      true,
    );
  });
});

describe('start-up check of the floor', () => {
  function floorLines(defaults: boolean) {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(line) },
    });
    checkFloor({ defaults, logger });
    return parseLogLines(lines);
  }

  it('GIVEN the defaults off THEN a warning at start says what that lets through', () => {
    const lines = floorLines(false);
    expect(lines.map((line) => [line['level'], line['msg']])).toEqual([[40, FLOOR_DEFAULTS_OFF]]);
    expect(FLOOR_DEFAULTS_OFF).toMatch(/Community Guidelines/);
  });

  it('GIVEN the defaults on THEN nothing is said', () => {
    expect(floorLines(true)).toEqual([]);
  });
});
