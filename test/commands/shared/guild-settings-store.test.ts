/**
 * Server settings against a real store under stress (no confirmed change lost, no failure read as the
 * defaults): concurrent admins, two processes on
 * one SQLite file, a locked database, and a store that fails. Each case is real SQLite through keyv (or
 * keyv over an adapter that throws), never a mock of keyv.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { SettingsUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { parseLogLines } from '../../support/harness.js';

const quiet = createLogger({ level: 'silent' });
const dirs: string[] = [];
const stores: Keyv[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function sqliteUrl(): Promise<{ url: string; file: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'settings-store-'));
  dirs.push(dir);
  const file = path.join(dir, 'bot.sqlite');
  return { url: `sqlite://${file}`, file };
}

function open(url: string): Keyv {
  const store = createStore(url);
  stores.push(store);
  return store;
}

function sqliteAdapter(store: Keyv): KeyvSqlite {
  const adapter: unknown = store.store;
  if (!(adapter instanceof KeyvSqlite)) throw new Error('not a SQLite store');
  return adapter;
}

/** The stored row as keyv wrote it, read with a connection of its own. */
async function rowOf(file: string, key: string): Promise<string | undefined> {
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  try {
    return await new Promise((resolve, reject) => {
      db.get('SELECT value FROM keyv WHERE key = ?', [key], (error, row: { value: string } | undefined) =>
        error ? reject(error) : resolve(row?.value),
      );
    });
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** A keyv adapter over a Map that can be told to fail, as a broken database would. */
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

describe('concurrent changes', () => {
  it('GIVEN two admins changing the site and a filter at the same moment THEN both confirmed changes are kept', async () => {
    const settings = createGuildSettings({ store: open((await sqliteUrl()).url), logger: quiet });
    await settings.setFilter('1', 'derpibooru', 100);
    await Promise.all([settings.setFilter('1', 'furbooru', 200), settings.setSite('1', 'furbooru')]);
    expect(await settings.get('1')).toEqual({
      siteId: 'furbooru',
      filters: { derpibooru: 100, furbooru: 200 },
    });
  });

  it('GIVEN memory:// and many concurrent changes THEN none is lost', async () => {
    const settings = createGuildSettings({ store: open('memory://'), logger: quiet });
    await Promise.all(Array.from({ length: 30 }, (_, i) => settings.setFilter('1', `site${i}`, i + 1)));
    expect(Object.keys((await settings.get('1')).filters)).toHaveLength(30);
  });

  it('GIVEN two processes (two keyv/SQLite connections) on one file writing at once THEN every confirmed write is there', async () => {
    const { url, file } = await sqliteUrl();
    const first = createGuildSettings({ store: open(url), logger: quiet });
    const second = createGuildSettings({ store: open(url), logger: quiet });
    const rounds = 25;
    const writes = Array.from({ length: rounds }, (_, i) => [
      first.setFilter('7', `a${i}`, i + 1),
      second.setFilter('7', `b${i}`, i + 1),
      ...(i === rounds - 1 ? [second.setSite('7', 'tantabus')] : []),
    ]).flat();
    const results = await Promise.allSettled(writes);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    const reader = createGuildSettings({ store: open(url), logger: quiet });
    const record = await reader.get('7');
    expect(record.siteId).toBe('tantabus');
    for (let i = 0; i < rounds; i += 1) {
      expect(record.filters[`a${i}`]).toBe(i + 1);
      expect(record.filters[`b${i}`]).toBe(i + 1);
    }
    // Still keyv's own form, so keyv reads it as before.
    expect(JSON.parse((await rowOf(file, 'keyv:settings:guild:7')) ?? 'null')).toEqual({
      value: { siteId: 'tantabus', filters: record.filters },
    });
  });

  it('GIVEN a record written by keyv itself (an older version of the bot) THEN an update keeps its fields', async () => {
    const store = open((await sqliteUrl()).url);
    await store.set('settings:guild:3', { siteId: 'furbooru', filters: { furbooru: 5 } });
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setFilter('3', 'derpibooru', 9);
    expect(await store.get('settings:guild:3')).toEqual({
      siteId: 'furbooru',
      filters: { furbooru: 5, derpibooru: 9 },
    });
  });
});

describe('a locked database', () => {
  // node-sqlite3 waits 1 s for a lock by default; a lock held longer (a second process writing a big
  // batch, a backup) failed the read, which keyv turned into "nothing stored".
  it('GIVEN another connection holding the lock for longer than sqlite3\u2019s default 1 s THEN the change waits for it and is stored', async () => {
    const { url, file } = await sqliteUrl();
    const store = open(url);
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setFilter('5', 'derpibooru', 1); // the table exists and the connection is open
    const other = new sqlite3.Database(file);
    const exec = (sql: string) =>
      new Promise<void>((resolve, reject) => other.exec(sql, (error) => (error ? reject(error) : resolve())));
    await exec('BEGIN EXCLUSIVE');
    const change = settings.setFilter('5', 'furbooru', 2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await exec('COMMIT');
    await new Promise<void>((resolve) => other.close(() => resolve()));
    await expect(change).resolves.toEqual({ siteId: undefined, filters: { derpibooru: 1, furbooru: 2 } });
    expect(await settings.get('5')).toEqual({ siteId: undefined, filters: { derpibooru: 1, furbooru: 2 } });
  });
});

describe('a store that fails', () => {
  it('GIVEN the SQLite read failing THEN get rejects with SettingsUnavailableError (not the defaults) AND a change writes nothing', async () => {
    const { url, file } = await sqliteUrl();
    const store = open(url);
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setSite('9', 'furbooru');
    await settings.setFilter('9', 'furbooru', 200);
    const before = await rowOf(file, 'keyv:settings:guild:9');

    // Settings that never read server 9 (another process, or this one after a restart): no copy to go on with.
    const unseen = createGuildSettings({ store, logger: quiet });
    const query = vi.spyOn(sqliteAdapter(store), 'query');
    query.mockRejectedValueOnce(new Error('SQLITE_BUSY: database is locked'));
    const read = unseen.get('9');
    await expect(read).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(read).rejects.toMatchObject({ operation: 'read', guildId: '9' });
    // The settings that wrote it go on with the last confirmed record, never the defaults.
    query.mockRejectedValueOnce(new Error('SQLITE_BUSY: database is locked'));
    expect(await settings.get('9')).toEqual({ siteId: 'furbooru', filters: { furbooru: 200 } });

    query.mockRejectedValueOnce(new Error('SQLITE_BUSY: database is locked'));
    await expect(settings.setFilter('9', 'tantabus', 300)).rejects.toMatchObject({ operation: 'read' });
    expect(await rowOf(file, 'keyv:settings:guild:9')).toBe(before);
    expect(await settings.get('9')).toEqual({ siteId: 'furbooru', filters: { furbooru: 200 } });
  });

  it('GIVEN an adapter whose reads throw THEN get rejects AND a change never overwrites the record', async () => {
    const { adapter, map, failing } = breakableAdapter();
    const store = new Keyv({ store: adapter });
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setSite('4', 'furbooru');
    await settings.setFilter('4', 'derpibooru', 100);
    const before = map.get('keyv:settings:guild:4');
    failing.get = true;
    await expect(createGuildSettings({ store, logger: quiet }).get('4')).rejects.toBeInstanceOf(
      SettingsUnavailableError,
    );
    expect(await settings.get('4')).toEqual({ siteId: 'furbooru', filters: { derpibooru: 100 } });
    await expect(settings.setFilter('4', 'tantabus', 300)).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(settings.setSite('4', undefined)).rejects.toBeInstanceOf(SettingsUnavailableError);
    expect(map.get('keyv:settings:guild:4')).toBe(before);
    failing.get = false;
    expect(await settings.get('4')).toEqual({ siteId: 'furbooru', filters: { derpibooru: 100 } });
  });

  it('GIVEN an adapter whose writes throw THEN the change rejects with operation write', async () => {
    const { adapter, failing } = breakableAdapter();
    const settings = createGuildSettings({ store: new Keyv({ store: adapter }), logger: quiet });
    failing.set = true;
    await expect(settings.setFilter('4', 'derpibooru', 1)).rejects.toMatchObject({
      name: 'SettingsUnavailableError',
      operation: 'write',
    });
  });

  it('GIVEN the delete failing THEN reset rejects (it is not confirmed) AND the settings are still there', async () => {
    const { url } = await sqliteUrl();
    const store = open(url);
    const settings = createGuildSettings({ store, logger: quiet });
    await settings.setFilter('6', 'derpibooru', 100);
    vi.spyOn(sqliteAdapter(store), 'query').mockRejectedValueOnce(
      new Error('SQLITE_READONLY: attempt to write a readonly database'),
    );
    await expect(settings.reset('6')).rejects.toMatchObject({
      name: 'SettingsUnavailableError',
      operation: 'delete',
    });
    expect(await settings.get('6')).toEqual({ siteId: undefined, filters: { derpibooru: 100 } });
    await settings.reset('6');
    expect(await settings.get('6')).toEqual({ siteId: undefined, filters: {} });
    await expect(settings.reset('6')).resolves.toBeUndefined(); // nothing to delete is fine
  });

  it('GIVEN a damaged record (read fine, bad content) THEN it still reads as the defaults with one warning, and a change replaces it', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => lines.push(line) },
    });
    const { url } = await sqliteUrl();
    const store = open(url);
    await sqliteAdapter(store).query(
      'INSERT INTO keyv (key, value) VALUES (?, ?)',
      'keyv:settings:guild:8',
      'not { json',
    );
    const settings = createGuildSettings({ store, logger });
    expect(await settings.get('8')).toEqual({ siteId: undefined, filters: {} });
    expect(parseLogLines(lines).filter((line) => line['level'] === 40)).toHaveLength(1);
    await settings.setFilter('8', 'derpibooru', 3);
    expect(await settings.get('8')).toEqual({ siteId: undefined, filters: { derpibooru: 3 } });
  });
});
