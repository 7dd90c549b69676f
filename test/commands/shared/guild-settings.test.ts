import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createButtonState } from '../../../src/discord/button-state.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { parseLogLines } from '../../support/harness.js';
import { z } from 'zod';

const dirs: string[] = [];

/** A logger whose lines are kept for the test to read. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { logger, lines: () => parseLogLines(lines) };
}
const quiet = createLogger({ level: 'silent' });
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('guild settings', () => {
  it('GIVEN nothing stored THEN the record is empty', async () => {
    const settings = createGuildSettings({ store: createStore('memory://'), logger: quiet });
    expect(await settings.get('1')).toEqual({ siteId: undefined, filters: {} });
  });

  it('GIVEN a site and filters per site THEN each filter stays with its site and servers are separate', async () => {
    const settings = createGuildSettings({ store: createStore('memory://'), logger: quiet });
    await settings.setFilter('1', 'derpibooru', 100);
    await settings.setSite('1', 'furbooru');
    await settings.setFilter('1', 'furbooru', 7);
    expect(await settings.get('1')).toEqual({
      siteId: 'furbooru',
      filters: { derpibooru: 100, furbooru: 7 },
    });
    expect(await settings.get('2')).toEqual({ siteId: undefined, filters: {} });
    await settings.reset('1');
    expect(await settings.get('1')).toEqual({ siteId: undefined, filters: {} });
  });

  it('GIVEN a damaged record THEN it reads as unset AND a warning names the server and the bad field', async () => {
    const store = createStore('memory://');
    await store.set('settings:guild:1', { siteId: 'derpibooru', filters: { derpibooru: 'x' } });
    const { logger, lines } = capturingLogger();
    expect(await createGuildSettings({ store, logger }).get('1')).toEqual({ siteId: undefined, filters: {} });
    const warnings = lines().filter((line) => line['level'] === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ guildId: '1', issues: ['filters.derpibooru'] });
  });

  it('GIVEN a readable record THEN nothing is logged', async () => {
    const store = createStore('memory://');
    await store.set('settings:guild:1', { filters: { derpibooru: 5 } });
    const { logger, lines } = capturingLogger();
    expect(await createGuildSettings({ store, logger }).get('1')).toEqual({
      siteId: undefined,
      filters: { derpibooru: 5 },
    });
    expect(lines()).toEqual([]);
  });

  it('GIVEN a sqlite store THEN settings survive a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'settings-'));
    dirs.push(dir);
    const url = `sqlite://${path.join(dir, 'bot.sqlite')}`;
    const first = createStore(url);
    await createGuildSettings({ store: first, logger: quiet }).setFilter('42', 'derpibooru', 56027);
    await createGuildSettings({ store: first, logger: quiet }).setSite('42', 'tantabus');
    await closeStore(first);
    const second = createStore(url);
    expect(await createGuildSettings({ store: second, logger: quiet }).get('42')).toEqual({
      siteId: 'tantabus',
      filters: { derpibooru: 56027 },
    });
    await closeStore(second);
  });
});

describe('interaction state', () => {
  it('GIVEN a stored value THEN its token reads it back until it expires', async () => {
    const state = createButtonState(createStore('memory://'));
    const schema = z.object({ query: z.string() });
    const token = await state.put('search', { query: 'pony' }, 30);
    expect(token).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(await state.get('search', token, schema)).toEqual({ query: 'pony' });
    expect(await state.get('reverse', token, schema)).toBeUndefined();
    expect(await state.get('search', 'bad token', schema)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await state.get('search', token, schema)).toBeUndefined();
  });
});
