/**
 * An import that changes the language of unfurls and feed posts says so in its preview, in the importing
 * member's language, naming each language by its own name (or Discord's server language when unset).
 */
import { describe, expect, it } from 'vitest';
import { previewText, type ImportPlan } from '../../../commands/settings/transfer-plan.js';
import type { GuildSettingsRecord } from '../../../commands/shared/guild-settings.js';
import { sayIn } from '../../../src/i18n/index.js';

const record = (language?: string): GuildSettingsRecord => ({
  siteId: undefined,
  filters: {},
  ...(language === undefined ? {} : { language }),
});
const plan = (language?: string): ImportPlan => ({
  settings: record(language),
  feeds: [],
  droppedChannels: [],
  droppedSites: [],
});
const site = (id: string | undefined) => id ?? 'Derpibooru';

describe('the import preview and the server’s language', () => {
  it('GIVEN a file that sets German on a server with none THEN a Russian member reads the change in Russian', () => {
    const text = previewText(plan('de'), { settings: record(), feeds: [] }, site, { say: sayIn('ru') });
    expect(text).toContain('Язык карточек ссылок и публикаций лент: язык сервера в Discord → Deutsch');
  });

  it('GIVEN a file that clears the language THEN the English preview says Discord’s server language', () => {
    const text = previewText(plan(), { settings: record('pl'), feeds: [] }, site);
    expect(text).toContain("Language of link cards and feed posts: Polski → Discord's server language");
  });

  it('GIVEN the same language in the file THEN no language line', () => {
    const text = previewText(plan('fr'), { settings: record('fr'), feeds: [] }, site);
    expect(text).not.toContain('Language of link cards');
  });
});
