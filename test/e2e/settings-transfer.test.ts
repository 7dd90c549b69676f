/**
 * `/settings export` and `/settings import file:` through the local Discord (issue 20 §4): the export is a
 * file on the local Discord's CDN; imported into ANOTHER server it shows a preview listing the channels
 * left out, Apply makes that server's settings and feeds the file's (minus those channels), Cancel changes
 * nothing, a broken, not-ours or future-version file gets its clear error and changes nothing, and only
 * the member who imported can press Apply.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FakeGuild, RecordedMessage } from '../fakes/discord/index.js';
import { FILTER_IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { customIds } from '../support/messages.js';
import { addFeed, settings, storedFeeds, storedRecord, tags, writeRecord } from '../support/settings.js';

let h: Harness;
let first: FakeGuild;
let second: FakeGuild;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET }, discord: { guilds: 2 } });
  first = h.discord.guild;
  const other = h.discord.guilds[1];
  if (other === undefined) throw new Error('the local Discord has one server');
  second = other;
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});

const EPHEMERAL = 1 << 6;
/** What the second server has before any import: settings and a feed of its own. */
let secondBefore: Awaited<ReturnType<typeof snapshot>>;

async function snapshot(guild: FakeGuild) {
  return { record: await storedRecord(h, guild.id), feeds: await storedFeeds(h, guild.id) };
}

beforeEach(async () => {
  await writeRecord(h, second.id, { siteId: undefined, filters: {} });
  await settings(h, {
    subcommand: 'channel',
    options: { channel: second.channels.plain, unfurl: false },
    channel: second.channels.plain,
    userId: second.ownerId,
  });
  if ((await storedFeeds(h, second.id)).length === 0)
    await addFeed(h, 'second own feed', second.channels.plain, second);
  secondBefore = await snapshot(second);
  expect(secondBefore.feeds).toHaveLength(1);
});

/** The first server set up and exported: the file's bytes. */
let exported: Buffer | undefined;
async function exportFirst(): Promise<Buffer> {
  if (exported !== undefined) return exported;
  await settings(h, { subcommand: 'filter', options: { filter_id: FILTER_IDS.default } });
  await settings(h, { subcommand: 'references', options: { enabled: false } });
  await tags(h, 'hide', 'gore');
  await tags(h, 'spoiler', 'blood');
  await tags(h, 'hide', 'guts', first.channels.plain);
  await addFeed(h, 'first feed', first.channels.plain);
  const reply = await settings(h, { subcommand: 'export' });
  expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
  expect(reply.content).toContain('1 channel with settings of their own) and its 1 feed.');
  expect(reply.attachments).toHaveLength(1);
  const attachment = reply.attachments[0] ?? {};
  expect(String(attachment['filename'])).toMatch(
    new RegExp(`^settings-${first.id}-\\d{4}-\\d{2}-\\d{2}\\.json$`),
  );
  const served = await fetch(String(attachment['url']));
  exported = Buffer.from(await served.arrayBuffer());
  return exported;
}

function importInto(guild: FakeGuild, data: Buffer | string): Promise<RecordedMessage> {
  return settings(h, {
    subcommand: 'import',
    channel: guild.channels.plain,
    userId: guild.ownerId,
    attachments: [{ option: 'file', filename: 'settings.json', contentType: 'application/json', data }],
  });
}

/** The exported file's top level, checked to be an object. */
const fileOf = (bytes: Buffer): Record<string, unknown> =>
  z.record(z.string(), z.unknown()).parse(JSON.parse(bytes.toString('utf8')));

const applyId = (preview: RecordedMessage): string =>
  customIds(preview).find((id) => id.startsWith('setimp:apply:')) ?? '';
const cancelId = (preview: RecordedMessage): string =>
  customIds(preview).find((id) => id.startsWith('setimp:cancel:')) ?? '';

describe('export, then import into another server', () => {
  it('GIVEN the export THEN it is a versioned JSON file of the settings and feeds', async () => {
    const file = fileOf(await exportFirst());
    expect(file).toMatchObject({
      format: 'philomena-bot/settings',
      version: 1,
      server: { id: first.id },
      settings: {
        filters: { [h.config.site.id]: FILTER_IDS.default },
        imageReferences: false,
        hiddenTags: ['gore'],
        spoileredTags: ['blood'],
        channels: { [first.channels.plain]: { hiddenTags: ['guts'] } },
      },
      feeds: [{ channelId: first.channels.plain, query: 'first feed', paused: false }],
    });
  });

  it('GIVEN the file imported into another server THEN the preview lists the channels left out, and Apply makes its settings and feeds the file’s without them', async () => {
    const preview = await importInto(second, await exportFirst());
    expect(preview.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(preview.content).toContain(`Settings file of server \`${first.id}\``);
    expect(preview.content).toContain(`Left out, not channels of this server: \`${first.channels.plain}\``);
    // Nothing is written before Apply.
    expect(await snapshot(second)).toEqual(secondBefore);

    const done = await h.discord
      .sendButton({ message: preview, customId: applyId(preview), userId: second.ownerId })
      .finalReply();
    expect(done.content).toMatch(
      /^Imported: this server's settings are now the file's, and it has 0 feeds\./,
    );
    expect(await snapshot(second)).toEqual({
      record: {
        siteId: undefined,
        filters: { [h.config.site.id]: FILTER_IDS.default },
        imageReferences: false,
        hiddenTags: ['gore'],
        spoileredTags: ['blood'],
      },
      feeds: [],
    });
  });

  it('GIVEN a file whose channels are the other server’s THEN Apply keeps their settings and feeds', async () => {
    const text = (await exportFirst())
      .toString('utf8')
      .replaceAll(first.channels.plain, second.channels.spoiler);
    const preview = await importInto(second, text);
    expect(preview.content).not.toContain('Left out');
    await h.discord
      .sendButton({ message: preview, customId: applyId(preview), userId: second.ownerId })
      .finalReply();
    const after = await snapshot(second);
    expect(after.record.channels).toEqual({ [second.channels.spoiler]: { hiddenTags: ['guts'] } });
    expect(after.feeds).toEqual([
      { channelId: second.channels.spoiler, siteId: h.config.site.id, query: 'first feed', paused: false },
    ]);
  });

  it('GIVEN the preview THEN Cancel changes nothing, and another member cannot press Apply', async () => {
    const preview = await importInto(second, await exportFirst());
    const stranger = h.discord.sendButton({
      message: preview,
      customId: applyId(preview),
      userId: second.otherMemberId,
    });
    const note = await stranger.finalReply();
    expect(note.id).not.toBe(preview.id);
    expect(note.content).toMatch(/This import is not yours/);
    expect(note.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(await snapshot(second)).toEqual(secondBefore);

    const cancelled = await h.discord
      .sendButton({ message: preview, customId: cancelId(preview), userId: second.ownerId })
      .finalReply();
    expect(cancelled.content).toBe('Import cancelled: nothing was changed.');
    expect(cancelled.components).toEqual([]);
    expect(await snapshot(second)).toEqual(secondBefore);
  });
});

describe('files that cannot be imported', () => {
  it('GIVEN a broken, a not-ours, a future-version and an invalid file THEN each gets its clear error and nothing changes', async () => {
    const good = fileOf(await exportFirst());
    const cases: [string, RegExp][] = [
      ['{"format": "philomena-bot/settings", "version": 1,', /it is not JSON text/],
      [JSON.stringify({ format: 'another-bot', settings: {} }), /not a philomena-bot settings file/],
      [JSON.stringify({ ...good, version: 2 }), /made by a newer version of the bot \(file version 2/],
      [
        JSON.stringify({ ...good, settings: { filters: { x: -1 } } }),
        /cannot be imported: `settings\.filters\.x` is wrong/,
      ],
    ];
    for (const [data, said] of cases) {
      const reply = await importInto(second, data);
      expect(reply.content).toMatch(said);
      expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
      expect(customIds(reply)).toEqual([]);
    }
    expect(await snapshot(second)).toEqual(secondBefore);
  });
});
