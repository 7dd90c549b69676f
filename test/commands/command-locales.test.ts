/**
 * Command, option and choice names and descriptions in every shipped language (issue 21): every string
 * has its key in every catalogue, English holds what the builders wrote, each localisation keeps
 * Discord's rules, and the registered bodies carry them (so the registration hash covers them).
 */
import { ApplicationCommandType, Locale } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import {
  commandKeys,
  localiseCommand,
  localiseCommands,
  localisedLocales,
  type CommandBodyJson,
} from '../../commands/shared/command-locales.js';
import type { Command } from '../../commands/shared/context.js';
import {
  createTranslator,
  loadCatalogues,
  shippedTranslator,
  SOURCE_LOCALE,
  type Catalogue,
} from '../../src/i18n/index.js';
import { commandBodies, commandsHash } from '../../src/discord/registration.js';
import { KNOWN_SITES, resolveSite } from '../../src/philomena/sites.js';

const CHAT_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const DISCORD_LOCALES = new Set<string>(Object.values(Locale));
const SITE_IDS = new Set(KNOWN_SITES.map((site) => site.id));

type LocalisationMap = Readonly<Record<string, string | null | undefined>> | null | undefined;

interface TextNode {
  readonly name: string;
  readonly description?: string | undefined;
  readonly name_localizations?: LocalisationMap;
  readonly description_localizations?: LocalisationMap;
  readonly options?: readonly TextNode[] | undefined;
  readonly choices?: readonly TextNode[] | undefined;
}

const length = (text: string): number => [...text].length;
const entries = (map: TextNode['name_localizations']): [string, string][] =>
  Object.entries(map ?? {}).flatMap(([locale, text]) => (typeof text === 'string' ? [[locale, text]] : []));

/** Every way `data` breaks Discord's rules for localisations, as readable lines. */
function ruleBreaks(data: CommandBodyJson): string[] {
  const out: string[] = [];
  const menu = data.type === ApplicationCommandType.Message || data.type === ApplicationCommandType.User;
  const check = (node: TextNode, at: string, kind: 'chat' | 'menu' | 'choice'): void => {
    for (const [locale, name] of entries(node.name_localizations)) {
      if (!DISCORD_LOCALES.has(locale)) out.push(`${at}: ${locale} is not a Discord locale`);
      const ok =
        kind === 'chat'
          ? CHAT_NAME.test(name) && name === name.toLowerCase()
          : length(name) >= 1 && length(name) <= (kind === 'menu' ? 32 : 100);
      if (!ok) out.push(`${at}: name ${locale} "${name}"`);
    }
    for (const [locale, text] of entries(node.description_localizations)) {
      if (!DISCORD_LOCALES.has(locale)) out.push(`${at}: ${locale} is not a Discord locale`);
      if (kind !== 'chat') out.push(`${at}: a description in ${locale} where Discord takes none`);
      if (length(text) < 1 || length(text) > 100) out.push(`${at}: description ${locale} "${text}"`);
    }
    for (const choice of node.choices ?? []) check(choice, `${at}.choice.${choice.name}`, 'choice');
    const options = node.options ?? [];
    for (const locale of DISCORD_LOCALES) {
      const names = options.map((option) => option.name_localizations?.[locale] ?? option.name);
      if (new Set(names).size !== names.length) out.push(`${at}: two options named alike in ${locale}`);
    }
    for (const option of options) check(option, `${at}.${option.name}`, 'chat');
  };
  check(data, data.name, menu ? 'menu' : 'chat');
  return out;
}

/** A translator over the shipped catalogues with `patch` laid over one locale. */
function patched(locale: string, patch: Catalogue) {
  const catalogues = new Map(loadCatalogues());
  catalogues.set(locale, { ...catalogues.get(locale), ...patch });
  return createTranslator(catalogues);
}

describe('command localisations', () => {
  it('GIVEN every command in every shipped locale THEN names and descriptions keep Discord’s rules', () => {
    for (const command of allCommands()) {
      expect(ruleBreaks(command.data), command.data.name).toEqual([]);
    }
  });

  it('GIVEN a localisation breaking a rule THEN the rule check finds it (uppercase, 33 characters, apostrophe, duplicate sibling, long description)', () => {
    const image = allCommands().find((command) => command.data.name === 'image');
    const search = allCommands().find((command) => command.data.name === 'search');
    if (image === undefined || search === undefined) throw new Error('image and search are registered');
    const broken = [
      { 'command.image.name': 'Bild' },
      { 'command.image.name': 'b'.repeat(33) },
      { 'command.image.name': "l'image" },
      { 'command.search.sort.name': 'ansicht' },
      { 'command.image.description': 'x'.repeat(101) },
    ];
    for (const patch of broken) {
      const translator = patched('de', patch);
      const breaks = [
        ...ruleBreaks(localiseCommand(image.data, translator)),
        ...ruleBreaks(localiseCommand(search.data, translator)),
      ];
      expect(breaks, JSON.stringify(patch)).not.toEqual([]);
    }
  });

  it('GIVEN every command THEN each of its strings has a key in every shipped catalogue, and English holds what the builder wrote', () => {
    const catalogues = loadCatalogues();
    const english = catalogues.get(SOURCE_LOCALE) ?? {};
    const used = new Set<string>();
    for (const command of allCommands()) {
      for (const [key, text] of commandKeys(command.data)) {
        const choiceValue = /\.choice\.([^.]+)$/.exec(key)?.[1];
        const languageChoice =
          key.startsWith('command.settings.language.') && catalogues.has(choiceValue ?? '');
        if (choiceValue !== undefined && (SITE_IDS.has(choiceValue) || languageChoice)) {
          // A site's name is a proper name, and so is a language's own name ("Deutsch", "Polski"): it has
          // no key, so no catalogue can rename it.
          expect(english[key], key).toBeUndefined();
          continue;
        }
        used.add(key);
        expect(english[key], key).toBe(text);
        for (const [locale, catalogue] of catalogues)
          expect(catalogue[key], `${locale} ${key}`).toBeDefined();
      }
    }
    const stale = Object.keys(english).filter((key) => key.startsWith('command.') && !used.has(key));
    expect(stale).toEqual([]);
  });

  it('GIVEN the registered bodies THEN every name and description carries every shipped language, es-419 the es-ES text and en-GB the English, and en-US none', () => {
    const translator = shippedTranslator();
    const expected = ['de', 'en-GB', 'es-419', 'es-ES', 'fr', 'pl', 'pt-BR', 'ru'];
    expect([...localisedLocales(translator)].sort()).toEqual(expected);
    for (const body of commandBodies(allCommands())) {
      const walk = (node: TextNode, described: boolean): void => {
        expect(Object.keys(node.name_localizations ?? {}).sort(), node.name).toEqual(expected);
        expect(node.name_localizations?.['es-419']).toBe(node.name_localizations?.['es-ES']);
        expect(node.name_localizations?.['en-GB']).toBe(node.name);
        if (described) {
          expect(Object.keys(node.description_localizations ?? {}).sort(), node.name).toEqual(expected);
          expect(node.description_localizations?.['en-GB']).toBe(node.description);
        } else {
          expect(node.description_localizations, node.name).toBeUndefined();
        }
        for (const option of node.options ?? []) walk(option, true);
      };
      walk(body, body.type !== ApplicationCommandType.Message);
    }
    const search = commandBodies(allCommands()).find((body) => body.name === 'search');
    expect(search?.name_localizations?.de).toBe('suche');
    expect(search?.description_localizations?.ru).toBe(
      'Ищет изображения: по одному на страницу или десять в сетке',
    );
    const menu = commandBodies(allCommands()).find((body) => body.name === 'Find source');
    expect(menu?.name_localizations?.fr).toBe('Trouver la source');
  });

  it('GIVEN choices THEN the bot’s own words are localised and site names are not, nor the configured site offered by its name', () => {
    const choicesOf = (
      commands: readonly Command[],
      command: string,
      path: readonly string[],
    ): readonly TextNode[] => {
      let node: TextNode | undefined = commands.find((c) => c.data.name === command)?.data;
      for (const name of path) node = node?.options?.find((option) => option.name === name);
      return node?.choices ?? [];
    };
    const channelSites = choicesOf(allCommands(), 'settings', ['channel', 'site']);
    expect(channelSites.find((c) => c.name === "The server's site")?.name_localizations?.pl).toBe(
      'Serwis ustawiony dla serwera',
    );
    expect(channelSites.find((c) => c.name === 'Derpibooru')?.name_localizations).toBeUndefined();
    expect(
      choicesOf(allCommands(), 'search', ['sort']).find((c) => c.name === 'newest')?.name_localizations?.de,
    ).toBe('Neueste');
    expect(
      choicesOf(allCommands(), 'settings', ['tags', 'preset', 'preset'])[0]?.name_localizations?.['pt-BR'],
    ).toBe('Sem conteúdo gerado por IA');

    const withCustom = allCommands({ defaultSite: resolveSite('https://booru.example.org') });
    const offered = choicesOf(withCustom, 'settings', ['site', 'site']).find((c) =>
      c.name.includes('booru.example.org'),
    );
    expect(offered).toBeDefined();
    expect(offered?.name_localizations).toBeUndefined();
  });

  it('GIVEN a changed translation THEN the registration hash changes, so the bot registers again', () => {
    const raw = allCommands().map((command): Command => command);
    const hashWith = (translator: ReturnType<typeof shippedTranslator>) =>
      commandsHash(commandBodies(localiseCommands(raw, translator)));
    expect(hashWith(shippedTranslator())).toBe(hashWith(shippedTranslator()));
    expect(hashWith(patched('de', { 'command.image.description': 'Zeigt ein Bild' }))).not.toBe(
      hashWith(shippedTranslator()),
    );
  });

  it('GIVEN a command whose strings have no keys yet THEN it registers in English alone rather than failing', () => {
    const data = { name: 'newthing', description: 'Something new', options: [] };
    const localised = localiseCommand(data, shippedTranslator());
    expect(localised).toEqual(data);
  });
});
