/**
 * `/settings export` and `/settings import file:` (issue 20 §4): the file, its reading (every refusal
 * says what is wrong), the plan against the target server, the preview, the buttons, and the atomic
 * apply, on memory and on SQLite.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { readTransferFile, TRANSFER_FORMAT } from '../../../commands/settings/transfer-file.js';
import { planImport, previewText } from '../../../commands/settings/transfer-plan.js';
import { storedGuildRecord, type GuildSettingsRecord } from '../../../commands/shared/guild-settings.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { closeStore, createStore } from '../../../src/store/index.js';
import { CHANNELS, GUILD, messageOf, NEWEST, NOW, OTHER_MEMBER, transferBed } from './transfer-support.js';

const stores: Keyv[] = [];
const dirs: string[] = [];
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
  const dir = await mkdtemp(path.join(tmpdir(), 'transfer-'));
  dirs.push(dir);
  return `sqlite://${path.join(dir, 'bot.sqlite')}`;
}

const [PLAIN, SECOND, AGE_RESTRICTED] = CHANNELS as [string, string, string, string];
const GONE_CHANNEL = '399999999999999999';

const RECORD: GuildSettingsRecord = {
  siteId: 'furbooru',
  filters: { furbooru: 12, derpibooru: 100073 },
  imageReferences: false,
  hiddenTags: ['gore', 'ai generated'],
  spoileredTags: ['spider'],
  channels: {
    [PLAIN]: { unfurl: false, hiddenTags: ['screencap'] },
    [AGE_RESTRICTED]: { siteId: 'derpibooru', filters: { derpibooru: 56027 } },
  },
};

function validFile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: TRANSFER_FORMAT,
    version: 1,
    exportedAt: new Date(NOW).toISOString(),
    server: { id: GUILD, name: 'Pony Place' },
    settings: storedGuildRecord(RECORD),
    feeds: [{ channelId: PLAIN, siteId: 'furbooru', query: 'cute', paused: false }],
    ...overrides,
  };
}

const bytesOf = (data: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(data));

function refusal(result: unknown): UserFacingError {
  if (!(result instanceof UserFacingError)) throw new Error(`not refused: ${JSON.stringify(result)}`);
  return result;
}

describe('reading a settings file', () => {
  it('GIVEN a valid file THEN it reads back the record and the feeds', () => {
    const file = readTransferFile(bytesOf(validFile()), 10);
    if (file instanceof UserFacingError) throw file;
    expect(storedGuildRecord(file.settings)).toEqual(storedGuildRecord(RECORD));
    expect(file.feeds).toEqual([{ channelId: PLAIN, siteId: 'furbooru', query: 'cute', paused: false }]);
    expect(file.server).toEqual({ id: GUILD, name: 'Pony Place' });
  });

  it.each([
    ['more than 512 KiB', new Uint8Array(512 * 1024 + 1).fill(32), 'settings.import.too-large', /512 KiB/],
    [
      'bytes that are not UTF-8',
      new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      'settings.import.not-json',
      /not JSON/,
    ],
    [
      'text that is not JSON',
      new TextEncoder().encode('{"format": '),
      'settings.import.not-json',
      /not JSON/,
    ],
    [
      'JSON of something else',
      bytesOf({ format: 'other-bot/settings' }),
      'settings.import.not-ours',
      /not a philomena-bot settings file/,
    ],
    ['a JSON array', bytesOf([1, 2]), 'settings.import.not-ours', /not a philomena-bot/],
    [
      'a newer version',
      bytesOf(validFile({ version: 2 })),
      'settings.import.newer',
      /newer version of the bot.*update/,
    ],
  ])('GIVEN %s THEN it is refused with a clear error', (_what, bytes, id, text) => {
    const error = refusal(readTransferFile(bytes, 10));
    expect(error.id).toBe(id);
    expect(error.message).toMatch(text);
  });

  it.each([
    [
      'a channel id that is not one',
      { settings: { filters: {}, channels: { 'not-an-id': { unfurl: false } } } },
      'settings.channels.not-an-id',
    ],
    [
      'a filter that is not a number',
      { settings: { filters: { furbooru: 'twelve' } } },
      'settings.filters.furbooru',
    ],
    [
      'too many tags',
      { settings: { filters: {}, hiddenTags: Array.from({ length: 201 }, (_, i) => `t${i}`) } },
      'settings.hiddenTags',
    ],
    [
      'an empty feed query',
      { feeds: [{ channelId: PLAIN, siteId: 'furbooru', query: '  ', paused: false }] },
      'feeds.0.query',
    ],
    [
      'a feed without paused',
      { feeds: [{ channelId: PLAIN, siteId: 'furbooru', query: 'a' }] },
      'feeds.0.paused',
    ],
    [
      'more feeds than the server may have',
      {
        feeds: Array.from({ length: 11 }, () => ({
          channelId: PLAIN,
          siteId: 'furbooru',
          query: 'a',
          paused: false,
        })),
      },
      'feeds',
    ],
    ['no version', { version: undefined }, 'version'],
    ['a date that is not one', { exportedAt: 'yesterday' }, 'exportedAt'],
  ])('GIVEN %s THEN the error names where the file is wrong', (_what, overrides, where) => {
    const error = refusal(readTransferFile(bytesOf(validFile(overrides)), 10));
    expect(error.id).toBe('settings.import.invalid');
    expect(error.message).toContain(`\`${where}\``);
    expect(error.message).toMatch(/Nothing was changed/);
  });
});

describe('planning an import', () => {
  const target = {
    channelIds: new Set(CHANNELS),
    feedChannelIds: new Set(CHANNELS),
    knownSite: (id: string) => ['derpibooru', 'furbooru'].includes(id),
  };

  it('GIVEN channels the server does not have and sites the bot does not know THEN they are dropped and listed', () => {
    const file = readTransferFile(
      bytesOf(
        validFile({
          settings: {
            siteId: 'elsewhere',
            filters: { furbooru: 1, elsewhere: 2 },
            channels: { [GONE_CHANNEL]: { unfurl: false }, [SECOND]: { siteId: 'elsewhere', unfurl: false } },
          },
          feeds: [
            { channelId: GONE_CHANNEL, siteId: 'furbooru', query: 'a', paused: false },
            { channelId: SECOND, siteId: 'elsewhere', query: 'b', paused: false },
            { channelId: SECOND, siteId: 'furbooru', query: 'c', paused: true },
          ],
        }),
      ),
      10,
    );
    if (file instanceof UserFacingError) throw file;
    const plan = planImport(file, target);
    expect(plan.settings).toEqual({
      siteId: undefined,
      filters: { furbooru: 1 },
      channels: { [SECOND]: { unfurl: false } },
    });
    expect(plan.feeds).toEqual([{ channelId: SECOND, siteId: 'furbooru', query: 'c', paused: true }]);
    expect(plan.droppedChannels).toEqual([GONE_CHANNEL]);
    expect(plan.droppedSites).toEqual(['elsewhere']);
    const text = previewText(
      plan,
      { settings: { siteId: undefined, filters: {} }, feeds: [] },
      (id) => id ?? 'Derpibooru',
    );
    expect(text).toContain(`Left out, not channels of this server: \`${GONE_CHANNEL}\``);
    expect(text).toContain('Left out, sites this bot does not know: elsewhere');
    expect(text).toContain(`Feeds added: "c" in <#${SECOND}>`);
  });

  it('GIVEN a file changing hundreds of things THEN the preview fits one message and says how much more', () => {
    const many = Array.from({ length: 200 }, (_, i) => `tag number ${i} with a rather long name`);
    const file = readTransferFile(
      bytesOf(validFile({ settings: { filters: {}, hiddenTags: many, spoileredTags: many } })),
      10,
    );
    if (file instanceof UserFacingError) throw file;
    const plan = planImport(file, target);
    const now = { settings: RECORD, feeds: [] };
    const text = previewText(plan, now, (id) => id ?? 'Derpibooru');
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/and 192 more/);
    expect(text).toContain('Hidden tags removed: gore, ai generated');
    expect(text).toContain(`Channel settings cleared: <#${PLAIN}>, <#${AGE_RESTRICTED}>`);
    expect(text).toContain('Site: furbooru → Derpibooru');
  });

  it('GIVEN board text with Markdown and mentions THEN the preview escapes it', () => {
    const file = readTransferFile(
      bytesOf(validFile({ settings: { filters: {}, hiddenTags: ['**bold** @everyone'] } })),
      10,
    );
    if (file instanceof UserFacingError) throw file;
    const text = previewText(
      planImport(file, target),
      { settings: { siteId: undefined, filters: {} }, feeds: [] },
      () => 'x',
    );
    expect(text).not.toContain('**bold**');
  });
});

describe.each([
  ['memory', async () => 'memory://'],
  ['SQLite', sqliteUrl],
])('export and import on %s', (_name, url) => {
  it('GIVEN a server with settings and feeds THEN export gives the file as an attachment, with no member data', async () => {
    const bed = transferBed(open(await url()));
    await bed.settings.update(GUILD, () => RECORD);
    await bed.feeds.add(
      {
        guildId: GUILD,
        channelId: PLAIN,
        siteId: 'furbooru',
        query: 'cute',
        createdBy: '42',
        createdAt: 1,
        cursor: 7,
      },
      10,
    );
    const { content, files } = messageOf(await bed.exportNow());
    expect(content).toMatch(/2 channels with settings of their own\) and its 1 feed\./);
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file?.name).toBe(`settings-${GUILD}-2026-11-26.json`);
    const text = file?.data.toString('utf8') ?? '';
    expect(text).toContain('\n  "format": "philomena-bot/settings"');
    expect(text).not.toContain('42');
    expect(text).not.toContain('cursor');
    expect(JSON.parse(text)).toMatchObject({
      version: 1,
      server: { id: GUILD, name: 'Pony Place' },
      settings: storedGuildRecord(RECORD),
    });
  });

  it("GIVEN an import applied THEN settings, feeds and the index are the file's; a kept feed keeps its id and cursor", async () => {
    const bed = transferBed(open(await url()));
    await bed.settings.update(GUILD, () => ({ siteId: undefined, filters: { derpibooru: 5 } }));
    const kept = await bed.feeds.add(
      {
        guildId: GUILD,
        channelId: PLAIN,
        siteId: 'furbooru',
        query: 'cute',
        createdBy: '42',
        createdAt: 1,
        cursor: 7,
      },
      10,
    );
    await bed.feeds.add(
      {
        guildId: GUILD,
        channelId: SECOND,
        siteId: 'furbooru',
        query: 'old',
        createdBy: '42',
        createdAt: 1,
        cursor: 3,
      },
      10,
    );
    bed.setUpload(
      JSON.stringify(
        validFile({
          feeds: [
            { channelId: PLAIN, siteId: 'furbooru', query: 'cute', paused: false },
            { channelId: AGE_RESTRICTED, siteId: 'derpibooru', query: 'night', paused: true },
          ],
        }),
      ),
    );
    const preview = await bed.importNow();
    const { content } = messageOf(preview);
    expect(content).toContain('Feeds added: "night"');
    expect(content).toContain('Feeds removed: "old"');
    expect(content).toContain('Feeds kept as they are: 1');
    // Nothing is written before Apply.
    expect(await bed.settings.get(GUILD)).toEqual({ siteId: undefined, filters: { derpibooru: 5 } });

    const applied = await bed.press(preview, 'Apply');
    expect(applied.deferral).toBe('update');
    expect(messageOf(applied.reply).content).toMatch(/^Imported: .* 2 feeds/);
    expect(messageOf(applied.reply).body.components).toEqual([]);
    expect(storedGuildRecord(await bed.settings.get(GUILD))).toEqual(storedGuildRecord(RECORD));
    const feeds = await bed.feeds.list(GUILD);
    expect(feeds.map((f) => [f.channelId, f.query, f.cursor, f.paused?.reason])).toEqual([
      [PLAIN, 'cute', 7, undefined],
      [AGE_RESTRICTED, 'night', NEWEST, 'admin'],
    ]);
    expect(feeds[0]?.id).toBe(kept.id);
    expect(feeds[1]).toMatchObject({ createdBy: '200000000000000001', createdAt: NOW, ageRestricted: true });
    // The new feed's query was asked of the board as the age-restricted channel may see it.
    expect(bed.searches).toContain('night');
    expect(await bed.feeds.guilds()).toEqual([GUILD]);
  });

  it('GIVEN a file without feeds applied THEN the server leaves the feeds index', async () => {
    const bed = transferBed(open(await url()));
    await bed.feeds.add(
      {
        guildId: GUILD,
        channelId: PLAIN,
        siteId: 'furbooru',
        query: 'cute',
        createdBy: '42',
        createdAt: 1,
        cursor: 7,
      },
      10,
    );
    bed.setUpload(JSON.stringify(validFile({ feeds: [] })));
    await bed.press(await bed.importNow(), 'Apply');
    expect(await bed.feeds.list(GUILD)).toEqual([]);
    expect(await bed.feeds.guilds()).toEqual([]);
  });
});

describe('the buttons', () => {
  it('GIVEN another member pressing Apply THEN they are told it is not theirs, privately, and nothing changes', async () => {
    const bed = transferBed(open('memory://'));
    bed.setUpload(JSON.stringify(validFile()));
    const preview = await bed.importNow();
    const before = await bed.settings.get(GUILD);
    const { deferral, reply } = await bed.press(preview, 'Apply', OTHER_MEMBER).then(
      (r) => ({ ...r, reply: r.reply }),
      (error: unknown) => ({ deferral: 'ephemeral', reply: error }),
    );
    expect(deferral).toBe('ephemeral');
    expect(reply).toBeInstanceOf(UserFacingError);
    expect((reply as UserFacingError).id).toBe('settings.import.not-yours');
    expect(await bed.settings.get(GUILD)).toEqual(before);
  });

  it('GIVEN Cancel THEN the preview is replaced and nothing changes', async () => {
    const bed = transferBed(open('memory://'));
    bed.setUpload(JSON.stringify(validFile()));
    const { reply, deferral } = await bed.press(await bed.importNow(), 'Cancel');
    expect(deferral).toBe('update');
    expect(messageOf(reply).content).toBe('Import cancelled: nothing was changed.');
    expect(await bed.settings.get(GUILD)).toEqual({ siteId: undefined, filters: {} });
  });

  it('GIVEN the plan gone from the store (15 minutes later) THEN Apply says it expired', async () => {
    const bed = transferBed(open('memory://'));
    bed.setUpload(JSON.stringify(validFile()));
    const preview = await bed.importNow();
    await bed.store.clear();
    const { reply } = await bed.press(preview, 'Apply');
    expect(reply).toEqual({ kind: 'expired', text: expect.stringMatching(/expired/) });
  });

  it('GIVEN an attachment Discord says is too large THEN it is refused before any download', async () => {
    const bed = transferBed(open('memory://'));
    await expect(bed.importNow(600 * 1024)).rejects.toMatchObject({ id: 'settings.import.too-large' });
  });
});
