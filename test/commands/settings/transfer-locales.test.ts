/**
 * `/settings export` and `/settings import` in the member's language (issue 21): every line of ours in the
 * pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and accented) within Discord's limits (2,000
 * characters of content with the confirmation line kept, button labels of 80), German and Russian answers,
 * and a file with a wrong field refused in the member's language, never with zod's English.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createSettingsTransfer } from '../../../commands/settings/transfer.js';
import { readTransferFile, TRANSFER_FORMAT } from '../../../commands/settings/transfer-file.js';
import type { CommandContext } from '../../../commands/shared/context.js';
import { inLocale, runtimeErrorText, UserFacingError } from '../../../src/discord/failures.js';
import type { Reply } from '../../../src/discord/contract.js';
import { PSEUDO_LOCALE, PSEUDO_MARK, shippedSays, translatorWithPseudo } from '../../support/locales.js';
import { CHANNELS, GUILD, messageOf, NOW, transferBed } from './transfer-support.js';

const CONTENT_MAX = 2000;
const LABEL_MAX = 80;
const [PLAIN, SECOND] = CHANNELS as [string, string, string, string];

function fileOf(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: TRANSFER_FORMAT,
    version: 1,
    exportedAt: new Date(NOW).toISOString(),
    server: { id: '100000000000000009', name: 'Elsewhere' },
    settings: {
      siteId: 'furbooru',
      filters: { furbooru: 12 },
      imageReferences: false,
      hiddenTags: ['gore'],
      spoileredTags: ['spider'],
      channels: { [PLAIN]: { unfurl: false } },
    },
    feeds: [{ channelId: SECOND, siteId: 'furbooru', query: 'cute', paused: false }],
    ...overrides,
  };
}

/** The bed of transfer-support.ts with the answers in `locale`, from the shipped and pseudo catalogues. */
async function bedIn(locale: string) {
  const bed = transferBed(new Keyv());
  const transfer = createSettingsTransfer({
    store: bed.store,
    feeds: bed.feeds,
    perServer: 10,
    translator: translatorWithPseudo(),
  });
  const context = { ...bed.context, locale } as CommandContext;
  await bed.settings.update(GUILD, () => ({ siteId: undefined, filters: {}, hiddenTags: ['old tag'] }));
  await bed.feeds.add(
    {
      guildId: GUILD,
      channelId: PLAIN,
      siteId: 'derpibooru',
      query: 'old',
      createdBy: '1',
      createdAt: NOW,
      cursor: 1,
      ageRestricted: false,
    },
    10,
  );
  const cmd = bed.command();
  const click = {
    user: cmd.user,
    guildId: GUILD,
    guild: cmd.guild,
    memberPermissions: cmd.memberPermissions,
  };

  function buttons(reply: Reply): { label: string; custom_id: string }[] {
    const { body } = messageOf(reply);
    return JSON.parse(JSON.stringify(body.components ?? [])).flatMap(
      (row: { components: { label: string; custom_id: string }[] }) => row.components,
    );
  }

  async function press(reply: Reply, index: 0 | 1): Promise<Reply> {
    const button = buttons(reply)[index];
    if (button === undefined) throw new Error('no such button');
    const [namespace, action, ...args] = button.custom_id.split(':');
    const handler = transfer.buttons[`${namespace}:${action}`];
    if (handler === undefined) throw new Error(`no handler for ${button.custom_id}`);
    return handler.run(click as never, args, context);
  }

  return {
    bed,
    buttons,
    press,
    exportNow: () => transfer.export(bed.command(), context, GUILD),
    importFile: (file: unknown) => {
      bed.setUpload(JSON.stringify(file));
      return transfer.import(bed.command(), context, GUILD);
    },
  };
}

/** Each line of `text` is a catalogue message (stretched), not English the code wrote itself. */
function expectPseudo(text: string): void {
  for (const line of text.split('\n')) expect(line, text).toMatch(PSEUDO_MARK);
}

describe('export and import in the pseudo-locale', () => {
  it('GIVEN an export, an import, Apply and Cancel THEN every line of ours is the pseudo-locale, within the limits', async () => {
    const t = await bedIn(PSEUDO_LOCALE);
    const exported = messageOf(await t.exportNow());
    expectPseudo(exported.content);
    expect(exported.content.length).toBeLessThanOrEqual(CONTENT_MAX);
    const [file] = exported.files;
    expect(file?.name).toMatch(/^settings-\d+-\d{4}-\d{2}-\d{2}\.json$/);
    expect(file?.description).toMatch(PSEUDO_MARK);
    expect(file?.description?.length).toBeLessThanOrEqual(1024);

    const preview = await t.importFile(fileOf());
    const { content } = messageOf(preview);
    expectPseudo(content);
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    for (const { label } of t.buttons(preview)) {
      expect(label).toMatch(PSEUDO_MARK);
      expect(label.length).toBeLessThanOrEqual(LABEL_MAX);
    }
    expectPseudo(messageOf(await t.press(preview, 0)).content);
    const again = await t.importFile(fileOf());
    expectPseudo(messageOf(await t.press(again, 1)).content);
  });

  it('GIVEN the longest preview a file can make THEN it fits 2,000 characters and still ends with the question', async () => {
    const t = await bedIn(PSEUDO_LOCALE);
    const long = (i: number) => `${'a very long tag name '.repeat(9)}${i}`.slice(0, 190);
    const tags = Array.from({ length: 200 }, (_, i) => long(i));
    const channels = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`39${String(i).padStart(16, '0')}`, { unfurl: false }]),
    );
    const feeds = Array.from({ length: 10 }, (_, i) => ({
      channelId: SECOND,
      siteId: 'furbooru',
      query: `${'q'.repeat(900)}${i}`,
      paused: i % 2 === 0,
    }));
    const preview = await t.importFile(
      fileOf({ settings: { filters: {}, hiddenTags: tags, spoileredTags: tags, channels }, feeds }),
    );
    const { content } = messageOf(preview);
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    expectPseudo(content);
    const confirm = translatorWithPseudo().t(PSEUDO_LOCALE, 'transfer.preview.confirm');
    expect(content.endsWith(confirm)).toBe(true);
  });
});

describe('export and import in German and Russian', () => {
  it('GIVEN a member whose Discord is in German THEN the export, the preview, its buttons and the answers are German', async () => {
    const t = await bedIn('de');
    expect(messageOf(await t.exportNow()).content).toMatch(
      /^Die Einstellungen dieses Servers \(.*0 Kanäle mit eigenen Einstellungen\) und sein 1 Feed\./,
    );
    const preview = await t.importFile(fileOf());
    const { content } = messageOf(preview);
    expect(content).toContain('Einstellungsdatei des Servers `100000000000000009`, exportiert am <t:');
    expect(content).toContain('Der Import dieser Datei würde Folgendes ändern:');
    expect(content).toContain('- Ausgeblendete Tags hinzugefügt: gore');
    expect(content).toContain('- Ausgeblendete Tags entfernt: old tag');
    expect(content).toContain(`- Feeds hinzugefügt: „cute“ in <#${SECOND}>`);
    expect(content).toContain('- Bildverweise: aus');
    expect(content).not.toMatch(/Importing|Feeds added|Apply/);
    expect(t.buttons(preview).map((b) => b.label)).toEqual(['Übernehmen', 'Abbrechen']);
    expect(messageOf(await t.press(preview, 0)).content).toMatch(/^Importiert: .* 1 Feed\./);
    const again = await t.importFile(fileOf());
    expect(messageOf(again).content).toContain('Der Import dieser Datei ändert nichts auf diesem Server.');
    expect(messageOf(await t.press(again, 1)).content).toBe('Import abgebrochen: Es wurde nichts geändert.');
  });

  it('GIVEN a member whose Discord is in Russian THEN the export, the preview, its buttons and the answers are Russian, plurals included', async () => {
    const t = await bedIn('ru');
    expect(messageOf(await t.exportNow()).content).toMatch(
      /0 каналов с собственными настройками\) и его 1 лента\./,
    );
    const preview = await t.importFile(
      fileOf({
        feeds: [
          { channelId: SECOND, siteId: 'furbooru', query: 'a', paused: false },
          { channelId: SECOND, siteId: 'furbooru', query: 'b', paused: false },
        ],
      }),
    );
    const { content } = messageOf(preview);
    expect(content).toContain('Импорт этого файла изменит:');
    expect(content).toContain(`- Добавлены ленты: «a» в <#${SECOND}>, «b» в <#${SECOND}>`);
    expect(content).toContain('Применить? (Кнопки работают 15 минут.)');
    expect(t.buttons(preview).map((b) => b.label)).toEqual(['Применить', 'Отмена']);
    expect(messageOf(await t.press(preview, 0)).content).toMatch(/и у него 2 ленты\./);
  });
});

/** Files each wrong in one field, with where and what a German member reads. */
const WRONG: readonly (readonly [string, Record<string, unknown>, string, string])[] = [
  [
    'a filter that is text',
    { settings: { filters: { furbooru: 'twelve' } } },
    'settings.filters.furbooru',
    'erwartet: eine Zahl',
  ],
  [
    'a channel key that is no id',
    { settings: { filters: {}, channels: { abc: {} } } },
    'settings.channels.abc',
    'keine Discord-ID',
  ],
  [
    'an empty query',
    { feeds: [{ channelId: PLAIN, siteId: 'furbooru', query: ' ', paused: false }] },
    'feeds.0.query',
    'leer',
  ],
  [
    'a feed without paused',
    { feeds: [{ channelId: PLAIN, siteId: 'furbooru', query: 'a' }] },
    'feeds.0.paused',
    'fehlt',
  ],
  [
    'a date that is none',
    { exportedAt: 'yesterday' },
    'exportedAt',
    'kein Datum mit Uhrzeit (ISO 8601, etwa 2026-01-31T12:00:00Z)',
  ],
  ['version 0', { version: 0 }, 'version', 'erlaubt ist nur `1`'],
  [
    'a filter id of 0',
    { settings: { filters: { furbooru: 0 } } },
    'settings.filters.furbooru',
    'zu klein: Es muss mehr als 0 sein',
  ],
  [
    'too many tags',
    { settings: { filters: {}, hiddenTags: Array.from({ length: 201 }, (_, i) => `t${i}`) } },
    'settings.hiddenTags',
    'zu viele Einträge: höchstens 200',
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
    'mehr Feeds, als dieser Server haben darf (höchstens 10)',
  ],
];

/** Zod's own words, which must never reach a member. */
const ZOD_ENGLISH = /Invalid|received|Too (big|small)|expected \w+, |must match pattern/;

async function refusalIn(locale: string, file: unknown): Promise<string> {
  const t = await bedIn(locale);
  const error: unknown = await t.importFile(file).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof UserFacingError)) throw new Error(`not refused: ${String(error)}`);
  expect(error.id).toBe('settings.import.invalid');
  return inLocale(runtimeErrorText(error), locale, translatorWithPseudo()).text;
}

describe('a file with a wrong field', () => {
  it.each(WRONG)(
    'GIVEN %s THEN a German member reads where and what in German',
    async (_what, overrides, where, what) => {
      const text = await refusalIn('de', fileOf(overrides));
      expect(text).toBe(
        `Diese Einstellungsdatei kann nicht importiert werden: \`${where}\` ist falsch (${what}). Es wurde nichts geändert.`,
      );
    },
  );

  it.each(WRONG)(
    'GIVEN %s THEN every language names the field and none shows zod English',
    async (_what, overrides, where) => {
      for (const { locale } of [...shippedSays(), { locale: PSEUDO_LOCALE }]) {
        const text = await refusalIn(locale, fileOf(overrides));
        expect(text, locale).toContain(`\`${where}\``);
        expect(text, locale).not.toMatch(ZOD_ENGLISH);
        if (locale === PSEUDO_LOCALE) expect(text).toMatch(PSEUDO_MARK);
      }
    },
  );

  it("GIVEN the same wrong file without a language THEN the English reason is ours, not zod's", () => {
    const error = readTransferFile(new TextEncoder().encode(JSON.stringify(fileOf(WRONG[0]?.[1]))), 10);
    if (!(error instanceof UserFacingError)) throw new Error('not refused');
    expect(error.message).toBe(
      'That settings file cannot be imported: `settings.filters.furbooru` is wrong (expected a number). Nothing was changed.',
    );
  });

  it('GIVEN a Polish member and a file of another format version THEN the reason is Polish with the value in code', async () => {
    const text = await refusalIn('pl', fileOf({ version: 0 }));
    expect(text).toBe(
      'Nie można zaimportować tego pliku ustawień: `version` jest nieprawidłowe (dozwolone jest tylko `1`). Nic nie zostało zmienione.',
    );
  });
});
