/**
 * Members' board keys at rest (commands/shared/member-keys.ts; issue 22 §1) in memory:// and SQLite: what
 * the raw store holds (no key, no run of 5 of its characters, not the secret), records moved to another
 * member or site, a rotation of the secret, a wrong secret, linking off, and the keys refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { LINKED_SITES_MAX, createMemberKeys, memberKeyOf } from '../../../commands/shared/member-keys.js';
import { SettingsUnavailableError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { parseLogLines } from '../../support/harness.js';
import { expectNoRunOf } from './member-keys-support.js';

const secret = () => randomBytes(32).toString('base64');
const boardKey = () => randomBytes(15).toString('base64url');

const dirs: string[] = [];
const stores: Keyv[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store).catch(() => undefined);
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function logCapture() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { logger, lines, records: () => parseLogLines(lines) };
}

function memoryStore(): Keyv {
  const store = createStore('memory://');
  stores.push(store);
  return store;
}

/** Everything the memory store holds, as text. */
function memoryText(store: Keyv): string {
  const map: unknown = store.store;
  if (!(map instanceof Map)) throw new Error('not a memory store');
  return JSON.stringify([...map.entries()]);
}

async function sqliteStore(): Promise<{ store: Keyv; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'member-keys-'));
  dirs.push(dir);
  const store = createStore(`sqlite://${path.join(dir, 'bot.sqlite')}`);
  stores.push(store);
  return { store, dir };
}

/** Every byte of every file SQLite keeps in `dir` (the database, its WAL and journal), as a copy would hold. */
async function filesText(dir: string): Promise<string> {
  const names = await readdir(dir);
  const texts = await Promise.all(names.map((name) => readFile(path.join(dir, name), 'latin1')));
  return texts.join('\n');
}

/**
 * Any character, key characters and the troublesome ones more often (fast-check's own 'binary' unit takes
 * seconds to start).
 */
const anyCharacter = fc.oneof(
  fc.constantFrom(...'aZ09_-', ' ', '\t', '\n', '\u0000', '\u00a0', '\u2028', '%'),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((code) => code < 0xd800 || code > 0xdfff)
    .map((code) => String.fromCodePoint(code)),
);

describe('member keys', () => {
  it('GIVEN a key linked THEN keyFor gives it back for its member and site only AND sites lists the last 4 characters', async () => {
    const keys = createMemberKeys({
      store: memoryStore(),
      logger: logCapture().logger,
      secrets: { current: secret() },
    });
    const key = boardKey();
    expect(keys.linking).toBe(true);
    const result = await keys.link('1001', 'derpibooru', ` ${key}\n`);
    expect(result).toEqual({ ok: true, site: { siteId: 'derpibooru', hint: key.slice(-4) } });
    expect(JSON.stringify(result)).not.toContain(key);
    expect((await keys.keyFor('1001', 'derpibooru'))?.reveal()).toBe(key);
    expect(await keys.keyFor('1001', 'furbooru')).toBeUndefined();
    expect(await keys.keyFor('1002', 'derpibooru')).toBeUndefined();
    expect(await keys.sites('1001')).toEqual([{ siteId: 'derpibooru', hint: key.slice(-4) }]);
    expect(await keys.sites('1002')).toEqual([]);
  });

  it('GIVEN keys on two sites THEN unlink deletes one at once AND forget the rest, leaving no record', async () => {
    const store = memoryStore();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current: secret() } });
    await Promise.all([keys.link('9', 'derpibooru', boardKey()), keys.link('9', 'furbooru', boardKey())]);
    expect((await keys.sites('9')).map((site) => site.siteId)).toEqual(['derpibooru', 'furbooru']);
    expect(await keys.unlink('9', 'derpibooru')).toBe(true);
    expect(await keys.unlink('9', 'derpibooru')).toBe(false);
    expect(await keys.keyFor('9', 'derpibooru')).toBeUndefined();
    expect((await keys.sites('9')).map((site) => site.siteId)).toEqual(['furbooru']);
    await keys.forget('9');
    expect(await keys.sites('9')).toEqual([]);
    expect(memoryText(store)).toBe('[]');
    await keys.link('9', 'derpibooru', boardKey());
    await keys.unlink('9', 'derpibooru');
    expect(memoryText(store)).toBe('[]');
  });

  it('GIVEN a key linked in memory:// THEN the raw store holds no run of 5 of its characters, nor the secret', async () => {
    const store = memoryStore();
    const current = secret();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current } });
    const key = boardKey();
    await keys.link('1001', 'derpibooru', key);
    const raw = memoryText(store);
    expect(raw).toContain('member-keys:1001');
    expectNoRunOf(key, raw);
    expect(raw).not.toContain(current);
  });

  it('GIVEN keys linked, re-linked and unlinked in a SQLite file THEN its bytes hold no run of 5 characters of any of them', async () => {
    const { store, dir } = await sqliteStore();
    const current = secret();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current } });
    const all = [boardKey(), boardKey(), boardKey()];
    await keys.link('1001', 'derpibooru', all[0] ?? '');
    await keys.link('1001', 'derpibooru', all[1] ?? '');
    await keys.link('1002', 'furbooru', all[2] ?? '');
    await keys.unlink('1002', 'furbooru');
    expect((await keys.keyFor('1001', 'derpibooru'))?.reveal()).toBe(all[1]);
    const raw = await filesText(dir);
    expect(raw).toContain('member-keys:1001');
    for (const key of all) expectNoRunOf(key, raw);
    expect(raw).not.toContain(current);
  });

  it('GIVEN a stored record copied to another member, or its entry moved to another site THEN it does not open AND the log names ids only', async () => {
    const store = memoryStore();
    const log = logCapture();
    const keys = createMemberKeys({ store, logger: log.logger, secrets: { current: secret() } });
    const key = boardKey();
    await keys.link('1001', 'derpibooru', key);
    const record: unknown = await store.get('member-keys:1001');
    await store.set('member-keys:2002', record);
    expect(await keys.sites('2002')).toEqual([{ siteId: 'derpibooru', hint: key.slice(-4) }]);
    expect(await keys.keyFor('2002', 'derpibooru')).toBeUndefined();

    const moved = JSON.parse(JSON.stringify(record).replaceAll('"derpibooru"', '"furbooru"')) as unknown;
    await store.set('member-keys:1001', moved);
    expect(await keys.keyFor('1001', 'furbooru')).toBeUndefined();
    const warnings = log.records().filter((line) => line['level'] === 40);
    expect(warnings.map((line) => [line['userId'], line['siteId']])).toEqual([
      ['2002', 'derpibooru'],
      ['1001', 'furbooru'],
    ]);
    expectNoRunOf(key, log.lines.join('\n'));
  });

  it('GIVEN keys sealed with A THEN B with previous A opens them and seals them again under B AND with A removed they still open', async () => {
    const { store } = await sqliteStore();
    const a = secret();
    const b = secret();
    const quiet = logCapture().logger;
    const key = boardKey();
    const other = boardKey();
    await createMemberKeys({ store, logger: quiet, secrets: { current: a } }).link('5', 'derpibooru', key);
    await createMemberKeys({ store, logger: quiet, secrets: { current: a } }).link('5', 'furbooru', other);
    const before = JSON.stringify(await store.get('member-keys:5'));
    expect(
      await createMemberKeys({ store, logger: quiet, secrets: { current: b } }).keyFor('5', 'derpibooru'),
    ).toBeUndefined();

    const rotating = createMemberKeys({ store, logger: quiet, secrets: { current: b, previous: a } });
    expect((await rotating.keyFor('5', 'derpibooru'))?.reveal()).toBe(key);
    expect(JSON.stringify(await store.get('member-keys:5'))).not.toBe(before);

    const after = createMemberKeys({ store, logger: quiet, secrets: { current: b } });
    expect((await after.keyFor('5', 'derpibooru'))?.reveal()).toBe(key);
    // Only what was read moved: the other site's key is still under A until its member uses it.
    expect(await after.keyFor('5', 'furbooru')).toBeUndefined();
    expect((await rotating.keyFor('5', 'furbooru'))?.reveal()).toBe(other);
    expect((await after.keyFor('5', 'furbooru'))?.reveal()).toBe(other);
    expect(await after.sites('5')).toHaveLength(2);
  });

  it('GIVEN a wrong secret THEN the key reads as not linked, is kept, and is logged once without the key', async () => {
    const store = memoryStore();
    const right = secret();
    const key = boardKey();
    await createMemberKeys({ store, logger: logCapture().logger, secrets: { current: right } }).link(
      '7',
      'derpibooru',
      key,
    );
    const log = logCapture();
    const wrong = createMemberKeys({ store, logger: log.logger, secrets: { current: secret() } });
    expect(await wrong.keyFor('7', 'derpibooru')).toBeUndefined();
    expect(await wrong.keyFor('7', 'derpibooru')).toBeUndefined();
    const warnings = log.records().filter((line) => line['level'] === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ userId: '7', siteId: 'derpibooru' });
    expect(String(warnings[0]?.['msg'])).toContain('MEMBER_KEY_SECRET');
    expectNoRunOf(key, log.lines.join('\n'));
    expect(log.lines.join('\n')).not.toContain(right);
    const fixed = createMemberKeys({ store, logger: log.logger, secrets: { current: right } });
    expect((await fixed.keyFor('7', 'derpibooru'))?.reveal()).toBe(key);
  });

  it('GIVEN no secret THEN linking is off: link says so and writes nothing, keyFor finds nothing, and unlink and forget still delete', async () => {
    const store = memoryStore();
    const key = boardKey();
    await createMemberKeys({ store, logger: logCapture().logger, secrets: { current: secret() } }).link(
      '3',
      'derpibooru',
      key,
    );
    const off = createMemberKeys({ store, logger: logCapture().logger, secrets: undefined });
    expect(off.linking).toBe(false);
    expect(await off.link('4', 'derpibooru', boardKey())).toEqual({ ok: false, reason: 'linking-off' });
    expect(await off.sites('4')).toEqual([]);
    expect(await off.keyFor('3', 'derpibooru')).toBeUndefined();
    expect(await off.sites('3')).toEqual([{ siteId: 'derpibooru', hint: key.slice(-4) }]);
    expect(await off.unlink('3', 'derpibooru')).toBe(true);
    await off.forget('3');
    expect(memoryText(store)).toBe('[]');
  });

  it.each([
    ['too short', 'abcdefghijklmno'],
    ['too long', 'a'.repeat(65)],
    ['a space inside', 'abcdefghij klmnopqrst'],
    ['a tab inside', 'abcdefghij\tklmnopqrst'],
    ['a control character', 'abcdefghij\u0000klmnopqrst'],
    ['a newline inside', 'abcdefghij\nklmnopqrst'],
    ['a query string', 'abcdefghijklmnopqrst&x=1'],
    ['non-ASCII letters', 'abcdefghijklmnopqrsé'],
    ['empty', ''],
  ])('GIVEN a key with %s THEN it is refused and nothing is stored', async (_, text) => {
    const store = memoryStore();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current: secret() } });
    expect(await keys.link('1', 'derpibooru', text)).toEqual({ ok: false, reason: 'not-a-key' });
    expect(memoryText(store)).toBe('[]');
  });

  it('GIVEN any text THEN memberKeyOf keeps only 16 to 64 of A-Z, a-z, 0-9, _ and - AND a key with whitespace or a control character inside is refused', () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/);
    const space = fc.constantFrom(' ', '\t', '\n', '\r\n', '');
    fc.assert(
      fc.property(fc.string({ maxLength: 80, unit: anyCharacter }), (text) => {
        const kept = memberKeyOf(text)?.reveal();
        return kept === undefined || (/^[A-Za-z0-9_-]{16,64}$/.test(kept) && text.includes(kept));
      }),
    );
    fc.assert(
      fc.property(
        space,
        key,
        space,
        (before, text, after) => memberKeyOf(before + text + after)?.reveal() === text,
      ),
    );
    const inside = fc.constantFrom(
      ' ',
      '\t',
      '\n',
      '\u0000',
      '\u001b',
      '\u007f',
      '\u00a0',
      '\u2028',
      '%',
      '&',
    );
    fc.assert(
      fc.property(key, inside, fc.nat(), (text, bad, at) => {
        const cut = 1 + (at % (text.length - 1));
        return memberKeyOf(text.slice(0, cut) + bad + text.slice(cut)) === undefined;
      }),
    );
  });

  it(`GIVEN ${LINKED_SITES_MAX} linked sites THEN a new one is refused while re-linking one of them is not`, async () => {
    const store = memoryStore();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current: secret() } });
    for (let i = 0; i < LINKED_SITES_MAX; i += 1) await keys.link('1', `site-${i}`, boardKey());
    expect(await keys.link('1', 'one-more', boardKey())).toEqual({ ok: false, reason: 'too-many-sites' });
    expect((await keys.link('1', 'site-0', boardKey())).ok).toBe(true);
    expect(await keys.sites('1')).toHaveLength(LINKED_SITES_MAX);
  });

  it('GIVEN site ids named like what every object inherits THEN nothing is found that was not linked', async () => {
    const keys = createMemberKeys({
      store: memoryStore(),
      logger: logCapture().logger,
      secrets: { current: secret() },
    });
    const key = boardKey();
    await keys.link('1', 'derpibooru', key);
    for (const siteId of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(await keys.keyFor('1', siteId)).toBeUndefined();
      expect(await keys.unlink('1', siteId)).toBe(false);
    }
    await expect(keys.link('1', '__proto__', boardKey())).rejects.toThrow(/^link: not a site id$/);
    expect((await keys.link('1', 'constructor', boardKey())).ok).toBe(true);
    expect((await keys.sites('1')).map((site) => site.siteId)).toEqual(['constructor', 'derpibooru']);
    expect((await keys.keyFor('1', 'derpibooru'))?.reveal()).toBe(key);
  });

  it('GIVEN a damaged record THEN it reads as no key, logged by member id', async () => {
    const store = memoryStore();
    const log = logCapture();
    const keys = createMemberKeys({ store, logger: log.logger, secrets: { current: secret() } });
    await store.set('member-keys:8', {
      sites: { derpibooru: { v: 1, nonce: 'x', data: 'y', tag: 'z', hint: 'abcd' } },
    });
    expect(await keys.keyFor('8', 'derpibooru')).toBeUndefined();
    expect(await keys.sites('8')).toEqual([]);
    expect(log.records().some((line) => line['userId'] === '8' && line['siteId'] === 'derpibooru')).toBe(
      true,
    );
  });

  it('GIVEN a store that fails THEN every operation rejects with SettingsUnavailableError, never "no key"', async () => {
    const store = memoryStore();
    const keys = createMemberKeys({ store, logger: logCapture().logger, secrets: { current: secret() } });
    await keys.link('1', 'derpibooru', boardKey());
    const map: unknown = store.store;
    if (!(map instanceof Map)) throw new Error('not a memory store');
    const broken = () => {
      throw new Error('SQLITE_IOERR: disk I/O error');
    };
    Object.assign(map, { get: broken, set: broken, delete: broken });
    await expect(keys.keyFor('1', 'derpibooru')).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(keys.sites('1')).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(keys.link('1', 'furbooru', boardKey())).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(keys.unlink('1', 'derpibooru')).rejects.toBeInstanceOf(SettingsUnavailableError);
    await expect(keys.forget('1')).rejects.toBeInstanceOf(SettingsUnavailableError);
  });
});
