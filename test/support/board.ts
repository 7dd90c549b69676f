/** The local Philomena as the bot met it: requests counted by path, the server filter set through /settings. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { startFakePhilomena, type FakePhilomena, type RecordedRequest } from '../fakes/philomena/index.js';
import type { Harness } from './harness.js';

export const API = '/api/v1/json';

/** The requests the local Philomena received since `mark` (an index into `booru.requests`) for `path`. */
export function boardCalls(booru: FakePhilomena, mark: number, path: string | RegExp): number {
  return boardRequests(booru, mark, path).length;
}

/** Those requests themselves. */
export function boardRequests(booru: FakePhilomena, mark: number, path: string | RegExp): RecordedRequest[] {
  return booru.requests
    .slice(mark)
    .filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)));
}

/** The server owner sets the server's filter with `/settings filter` in the plain channel; the reply. */
export function setServerFilter(h: Pick<Harness, 'discord'>, filterId: number): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommand: 'filter',
      options: { filter_id: filterId },
      channel: 'plain',
      userId: h.discord.guild.ownerId,
    })
    .finalReply();
}

/**
 * One local Philomena for a test file: started before its tests, reset to its data set before each,
 * closed after; `use` gets it and its site as they start.
 */
export function useFakeBoard(use: (booru: FakePhilomena, site: Site) => void): void {
  let started: FakePhilomena | undefined;
  beforeAll(async () => {
    started = await startFakePhilomena();
    use(started, resolveSite(started.url));
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    started?.reset();
  });
}
