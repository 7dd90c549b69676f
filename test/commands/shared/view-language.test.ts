/**
 * The language of what a view makes (issue 21, "Whose language"): the member's for what they asked; for
 * what nobody asked for, the channel's language, else the server's (`/settings language`), else Discord's
 * preferred locale of the server, else English. A thread follows its parent. And the record: `language`
 * is validated to a shipped locale, compacted like the rest, and carried by the stored form.
 */
import { ChannelType } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  createGuildSettings,
  guildRecordOf,
  guildRecordSchema,
  storedGuildRecord,
} from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { languageIn, resolveView, viewLocale } from '../../../commands/shared/view.js';
import { createLogger } from '../../../src/logger.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { createStore } from '../../../src/store/index.js';

const derpibooru = knownSite('derpibooru');
if (derpibooru === undefined) throw new Error('known site missing');
const sites = createSiteDirectory({ defaultSite: derpibooru, defaultFilterId: 100073 });
const quiet = createLogger({ level: 'silent' });

const text = (id: string) => ({ id, type: ChannelType.GuildText, nsfw: false });
const thread = (id: string, parentId: string) => ({
  id,
  type: ChannelType.PublicThread,
  parentId,
  parent: { type: ChannelType.GuildText, nsfw: false },
});

async function settingsWith(server: string | undefined, channel: string | undefined) {
  const settings = createGuildSettings({ store: createStore('memory://'), logger: quiet });
  await settings.update('1', (current) => ({
    ...current,
    ...(server === undefined ? {} : { language: server }),
    ...(channel === undefined ? {} : { channels: { '10': { language: channel } } }),
  }));
  return settings;
}

describe('the language of a view', () => {
  it('GIVEN a member’s locale THEN it wins over the channel’s, the server’s and Discord’s', async () => {
    const settings = await settingsWith('ru', 'fr');
    const view = await resolveView(
      { guildId: '1', channel: text('10'), memberLocale: 'pl', guildLocale: 'de' },
      { settings, sites },
    );
    expect(view.locale).toBe('pl');
  });

  it('GIVEN no member THEN the channel’s language, else the server’s, else Discord’s, else English', async () => {
    const both = await settingsWith('ru', 'fr');
    const serverOnly = await settingsWith('ru', undefined);
    const none = await settingsWith(undefined, undefined);
    const locale = async (settings: typeof both, guildLocale?: string | null) =>
      (
        await resolveView(
          { guildId: '1', channel: text('10'), ...(guildLocale === undefined ? {} : { guildLocale }) },
          { settings, sites },
        )
      ).locale;
    expect(await locale(both, 'de')).toBe('fr');
    expect(await locale(serverOnly, 'de')).toBe('ru');
    expect(await locale(none, 'de')).toBe('de');
    expect(await locale(none, null)).toBe('en-US');
    expect(await locale(none)).toBe('en-US');
  });

  it('GIVEN a thread THEN it follows its parent channel’s language', async () => {
    const settings = await settingsWith('ru', 'fr');
    const view = await resolveView(
      { guildId: '1', channel: thread('11', '10'), guildLocale: 'de' },
      { settings, sites },
    );
    expect(view.locale).toBe('fr');
  });

  it('GIVEN a DM THEN no server’s language applies (the member’s, else English)', async () => {
    const settings = await settingsWith('ru', 'fr');
    const dm = { id: '10', type: ChannelType.DM, nsfw: false };
    expect((await resolveView({ guildId: null, channel: dm }, { settings, sites })).locale).toBe('en-US');
  });

  it('GIVEN empty locales THEN they count as none', () => {
    expect(viewLocale({ memberLocale: '', language: undefined, guildLocale: 'es-ES' })).toEqual({
      locale: 'es-ES',
    });
    expect(viewLocale({ memberLocale: null, guildLocale: '' })).toEqual({});
    expect(languageIn(undefined, '10')).toBeUndefined();
  });
});

describe('the language in the server’s record', () => {
  it('GIVEN a shipped locale THEN it is stored, read back and kept in the canonical form, on the server and on a channel', () => {
    const parsed = guildRecordSchema.parse({
      filters: {},
      language: 'de',
      channels: { '10': { language: 'ru' } },
    });
    const record = guildRecordOf(parsed);
    expect(record.language).toBe('de');
    expect(record.channels?.['10']).toEqual({ language: 'ru' });
    expect(storedGuildRecord(record)).toEqual({
      filters: {},
      language: 'de',
      channels: { '10': { language: 'ru' } },
    });
  });

  it('GIVEN a locale the bot does not ship THEN it reads as unset and the rest of the record stays', () => {
    const parsed = guildRecordSchema.parse({
      filters: { derpibooru: 5 },
      language: 'ja',
      channels: { '10': { language: 'xx-YY', unfurl: false } },
    });
    const record = guildRecordOf(parsed);
    expect(record.language).toBeUndefined();
    expect(record.filters).toEqual({ derpibooru: 5 });
    expect(record.channels?.['10']).toEqual({ unfurl: false });
  });

  it('GIVEN a channel whose only setting was its language THEN unsetting it leaves no channel record', async () => {
    const settings = await settingsWith(undefined, 'fr');
    await settings.update('1', (current) => ({ ...current, channels: { '10': {} } }));
    expect((await settings.get('1')).channels).toBeUndefined();
    expect(storedGuildRecord(await settings.get('1'))).toEqual({ filters: {} });
  });
});
