/**
 * The words of issue 21's `/settings language` piece outside the end-to-end run: an export carries the
 * server's and a channel's language and an import puts them back; the unfurl reply's own line is in the
 * view's language in every shipped language and in the pseudo-locale (within Discord's 2,000 characters);
 * and the `/settings show` language line names where the language comes from.
 */
import { describe, expect, it } from 'vitest';
import { languageLine } from '../../../commands/settings/language.js';
import { exportFile, readTransferFile } from '../../../commands/settings/transfer-file.js';
import { planImport } from '../../../commands/settings/transfer-plan.js';
import type { GuildSettingsRecord } from '../../../commands/shared/guild-settings.js';
import { contentOf } from '../../../commands/unfurl/unfurl.js';
import { sayEnglish } from '../../../src/i18n/index.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../../support/locales.js';

const CHANNEL = '300000000000000001';

describe('the language in an export and an import', () => {
  it('GIVEN a server and a channel with a language THEN the file carries both and the import keeps them', () => {
    const record: GuildSettingsRecord = {
      siteId: undefined,
      filters: {},
      language: 'de',
      channels: { [CHANNEL]: { language: 'pt-BR' } },
    };
    const file = exportFile({ guildId: '1', guildName: 'g', record, feeds: [], now: Date.UTC(2026, 0, 1) });
    expect(JSON.parse(file.data.toString('utf8'))).toMatchObject({
      settings: { language: 'de', channels: { [CHANNEL]: { language: 'pt-BR' } } },
    });
    const read = readTransferFile(file.data, 10);
    if (read instanceof Error) throw read;
    const plan = planImport(read, {
      channelIds: new Set([CHANNEL]),
      feedChannelIds: new Set([CHANNEL]),
      knownSite: () => true,
    });
    expect(plan.settings.language).toBe('de');
    expect(plan.settings.channels?.[CHANNEL]).toEqual({ language: 'pt-BR' });
  });
});

describe('the unfurl reply’s own line', () => {
  it('GIVEN no language THEN English exactly as before', () => {
    expect(contentOf([], 2)).toEqual({ content: '…and 2 more links not shown.' });
    expect(contentOf([], 1, sayEnglish)).toEqual({ content: '…and 1 more link not shown.' });
  });

  it('GIVEN every shipped language THEN the line is that language’s, its count formatted by it', () => {
    const lines = new Set<string>();
    for (const { locale, say } of shippedSays()) {
      const content = contentOf([], 1234, say).content ?? '';
      expect(content, locale).toMatch(/1[\s\u00a0\u202f.,]?234/);
      lines.add(content);
    }
    expect(lines.size).toBe(shippedSays().length);
  });

  it('GIVEN the pseudo-locale THEN the line is stretched and whole, within 2,000 characters', () => {
    const content = contentOf(['x'.repeat(1990)], 5, pseudoSay()).content ?? '';
    expect(content.length).toBeLessThanOrEqual(2000);
    expect(contentOf([], 5, pseudoSay()).content).toMatch(PSEUDO_MARK);
  });
});

describe('the language line of /settings show', () => {
  const record: GuildSettingsRecord = {
    siteId: undefined,
    filters: {},
    language: 'ru',
    channels: { [CHANNEL]: { language: 'fr' } },
  };
  it('GIVEN a channel’s own, the server’s and Discord’s THEN each says its source', () => {
    const channel = { kind: 'channel', channelId: CHANNEL } as const;
    const other = { kind: 'channel', channelId: '300000000000000002' } as const;
    expect(languageLine(record, channel, sayEnglish, 'de')).toBe(
      "• Language of unfurls and feed posts: **Français** (this channel's own)",
    );
    expect(languageLine(record, other, sayEnglish, 'de')).toBe(
      "• Language of unfurls and feed posts: **Русский** (the server's)",
    );
    expect(languageLine({ siteId: undefined, filters: {} }, { kind: 'server' }, sayEnglish, 'es-419')).toBe(
      "Language of unfurls and feed posts: **Español** (Discord's server language; /settings language)",
    );
    expect(languageLine({ siteId: undefined, filters: {} }, { kind: 'server' }, sayEnglish)).toBe(
      "Language of unfurls and feed posts: Discord's server language (/settings language)",
    );
  });
});
