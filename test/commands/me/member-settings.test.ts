/**
 * Members' own settings (`/me`) in a real store: memory://, SQLite (two connections on one file) and a
 * keyv adapter that fails as a broken database would. Keyed by the user alone; no confirmed change lost;
 * a failing store never reads as "nothing set"; a damaged record reads as unset, said once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemberSettings, memberFacing } from '../../../commands/me/member-settings.js';
import { USER_ERROR_IDS, userErrorText } from '../../../commands/shared/error-texts.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { SettingsUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { parseLogLines } from '../../support/harness.js';

const quiet = createLogger({ level: 'silent' });
const DEFAULTS = { unfurl: true, filters: {}, hiddenTags: [] };
const dirs: string[] = [];
const stores: Keyv[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function open(url: string): Keyv {
  const store = createStore(url);
  stores.push(store);
  return store;
}

async function sqliteUrl(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'member-settings-'));
  dirs.push(dir);
  return `sqlite://${path.join(dir, 'bot.sqlite')}`;
}

/** A keyv adapter over a Map that can be told to fail. */
function breakableAdapter() {
  const map = new Map<string, unknown>();
  const failing = { get: false, set: false, delete: false };
  const adapter = {
    async get(key: string) {
      if (failing.get) throw new Error('SQLITE_IOERR: disk I/O error');
      return map.get(key);
    },
    async set(key: string, value: unknown) {
      if (failing.set) throw new Error('SQLITE_FULL: database or disk is full');
      map.set(key, value);
      return true;
    },
    async delete(key: string) {
      if (failing.delete) throw new Error('SQLITE_READONLY: attempt to write a readonly database');
      return map.delete(key);
    },
    async clear() {
      map.clear();
    },
  };
  return { adapter, map, failing };
}

describe.each(['memory', 'sqlite'])('member settings over %s', (kind) => {
  const url = () => (kind === 'memory' ? Promise.resolve('memory://') : sqliteUrl());

  it('GIVEN nothing stored THEN the defaults: unfurling on, no filter, no hidden tags', async () => {
    const members = createMemberSettings({ store: open(await url()), logger: quiet });
    expect(await members.get('1')).toEqual(DEFAULTS);
  });

  it('GIVEN unfurl off and filters on two sites THEN each is kept per member, and one site cleared leaves the other', async () => {
    const members = createMemberSettings({ store: open(await url()), logger: quiet });
    await members.setUnfurl('1', false);
    await members.setFilter('1', 'derpibooru', 100);
    expect(await members.setFilter('1', 'furbooru', 200)).toEqual({
      unfurl: false,
      filters: { derpibooru: 100, furbooru: 200 },
      hiddenTags: [],
    });
    expect(await members.get('2')).toEqual(DEFAULTS);
    await members.setFilter('1', 'derpibooru', undefined);
    expect(await members.get('1')).toEqual({ unfurl: false, filters: { furbooru: 200 }, hiddenTags: [] });
    await members.setUnfurl('1', true);
    expect((await members.get('1')).unfurl).toBe(true);
  });

  it('GIVEN forget THEN everything is gone at once, and forgetting again is fine', async () => {
    const store = open(await url());
    const members = createMemberSettings({ store, logger: quiet });
    await members.setUnfurl('1', false);
    await members.updateHiddenTags('1', () => ['pony']);
    await members.forget('1');
    expect(await members.get('1')).toEqual(DEFAULTS);
    expect(await store.get('settings:member:1')).toBeUndefined();
    await expect(members.forget('1')).resolves.toBeUndefined();
  });

  it('GIVEN many concurrent changes THEN none is lost', async () => {
    const members = createMemberSettings({ store: open(await url()), logger: quiet });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => members.setFilter('1', `site${i}`, i + 1)),
      members.setUnfurl('1', false),
      members.updateHiddenTags('1', (tags) => [...tags, 'a']),
      members.updateHiddenTags('1', (tags) => [...tags, 'b']),
    ]);
    const record = await members.get('1');
    expect(Object.keys(record.filters)).toHaveLength(20);
    expect(record.unfurl).toBe(false);
    expect([...record.hiddenTags].sort()).toEqual(['a', 'b']);
  });
});

describe('the record', () => {
  it('GIVEN two processes (two SQLite connections on one file) THEN a member set in one is read in the other', async () => {
    const url = await sqliteUrl();
    const first = createMemberSettings({ store: open(url), logger: quiet });
    const second = createMemberSettings({ store: open(url), logger: quiet });
    await Promise.all([first.setUnfurl('5', false), second.setFilter('5', 'derpibooru', 9)]);
    expect(await createMemberSettings({ store: open(url), logger: quiet }).get('5')).toEqual({
      unfurl: false,
      filters: { derpibooru: 9 },
      hiddenTags: [],
    });
  });

  it('GIVEN only defaults changed back THEN the stored form holds no key for them', async () => {
    const store = open('memory://');
    const members = createMemberSettings({ store, logger: quiet });
    await members.setUnfurl('1', false);
    expect(await store.get('settings:member:1')).toEqual({ unfurl: false });
    await members.setUnfurl('1', true);
    expect(await store.get('settings:member:1')).toEqual({});
  });

  it('GIVEN hidden tags past 200 THEN the change is refused with me.hidden-tags-full and nothing is written; duplicates count once', async () => {
    const members = createMemberSettings({ store: open('memory://'), logger: quiet });
    const many = Array.from({ length: 200 }, (_, i) => `tag ${i}`);
    await members.updateHiddenTags('1', () => [...many, 'tag 0']);
    expect((await members.get('1')).hiddenTags).toHaveLength(200);
    const refused = members.updateHiddenTags('1', (tags) => [...tags, 'one more']);
    await expect(refused).rejects.toBeInstanceOf(UserFacingError);
    await expect(refused).rejects.toMatchObject({ id: 'me.hidden-tags-full' });
    expect((await members.get('1')).hiddenTags).toHaveLength(200);
  });

  it('GIVEN a damaged record THEN it reads as the defaults with one warning naming the member, and a change replaces it', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => lines.push(line) },
    });
    const store = open('memory://');
    await store.set('settings:member:8', { unfurl: 'sometimes', hiddenTags: Array(201).fill('x') });
    const members = createMemberSettings({ store, logger });
    expect(await members.get('8')).toEqual(DEFAULTS);
    const warnings = parseLogLines(lines).filter((line) => line['level'] === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.['userId']).toBe('8');
    await members.setFilter('8', 'derpibooru', 3);
    expect(await members.get('8')).toEqual({ unfurl: true, filters: { derpibooru: 3 }, hiddenTags: [] });
  });
});

describe('a store that fails', () => {
  it('GIVEN reads that throw THEN get and every change reject with SettingsUnavailableError (never the defaults) AND nothing is overwritten', async () => {
    const { adapter, map, failing } = breakableAdapter();
    const members = createMemberSettings({ store: new Keyv({ store: adapter }), logger: quiet });
    await members.setUnfurl('4', false);
    const before = map.get('keyv:settings:member:4');
    failing.get = true;
    await expect(members.get('4')).rejects.toMatchObject({
      name: 'SettingsUnavailableError',
      operation: 'read',
    });
    await expect(members.setUnfurl('4', true)).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(members.setFilter('4', 'derpibooru', 1)).rejects.toBeInstanceOf(SettingsUnavailableError);
    expect(map.get('keyv:settings:member:4')).toBe(before);
    failing.get = false;
    expect((await members.get('4')).unfurl).toBe(false);
  });

  it('GIVEN writes or deletes that throw THEN the change and forget reject (not confirmed) AND the record is still there', async () => {
    const { adapter, failing } = breakableAdapter();
    const members = createMemberSettings({ store: new Keyv({ store: adapter }), logger: quiet });
    await members.setFilter('4', 'derpibooru', 5);
    failing.set = true;
    await expect(members.setUnfurl('4', false)).rejects.toMatchObject({ operation: 'write' });
    failing.delete = true;
    await expect(members.forget('4')).rejects.toMatchObject({ operation: 'delete' });
    failing.set = false;
    failing.delete = false;
    expect(await members.get('4')).toEqual({ unfurl: true, filters: { derpibooru: 5 }, hiddenTags: [] });
  });

  it('GIVEN a failure of the member store THEN the member reads about their own settings, not a server', () => {
    for (const operation of ['read', 'write', 'delete'] as const) {
      const facing = memberFacing(new SettingsUnavailableError(operation, 'member 1'));
      expect(facing).toBeInstanceOf(UserFacingError);
      const text = userErrorText(facing);
      expect(USER_ERROR_IDS).toContain(text.id);
      expect(text.id).toBe(`me.unavailable.${operation}`);
      expect(text.text).not.toMatch(/server/);
    }
    const other = new Error('a bug');
    expect(memberFacing(other)).toBe(other);
  });
});
