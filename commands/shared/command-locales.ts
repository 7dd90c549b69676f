/**
 * Command, option and choice names and descriptions in every language the bot ships, carried by the
 * registration itself: Discord's client shows each member the `name_localizations` and
 * `description_localizations` for their own locale, and the English the builders wrote stays the default
 * (it is also what every interaction carries back, so routing and option reading never see a translation).
 *
 * Every string has one key, named after where it sits (`commandKeys` spells the scheme):
 *   command.<command>.name / .description                      the command (`Find source` → `find-source`)
 *   command.<command>[.<group>].<sub>.name / .description      a subcommand, in its group if any
 *   command.<...>.<option>.name / .description                 an option
 *   command.<...>.<option>.choice.<value>                      a choice that is the bot's own words
 * A choice without a key, or whose English key no longer says what the builder wrote (a site's proper
 * name, the configured site offered by its name), keeps its name in every language.
 *
 * The locales given are Discord's locales whose language the bot ships: each shipped one but English (the
 * default), and the regional variants Discord lets be set apart (`es-419` gets the `es-ES` text, `en-GB`
 * the `en-US` one), so those members see their language rather than nothing localised.
 */
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  Locale,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  type APIApplicationCommandOptionChoice,
  type APIApplicationCommandSubcommandOption,
  type LocalizationMap,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type RESTPostAPIContextMenuApplicationCommandsJSONBody,
} from 'discord.js';
import { shippedTranslator, SOURCE_LOCALE, type Translator } from '../../src/i18n/index.js';
import type { Command } from './context.js';

export type CommandBodyJson =
  RESTPostAPIChatInputApplicationCommandsJSONBody | RESTPostAPIContextMenuApplicationCommandsJSONBody;

const languageOf = (locale: string): string => (locale.split('-')[0] ?? '').toLowerCase();

/** Discord's locales whose language the translator ships, English (the default) left out. */
export function localisedLocales(translator: Translator): Locale[] {
  return Object.values(Locale).filter(
    (locale) => locale !== SOURCE_LOCALE && languageOf(translator.resolve(locale)) === languageOf(locale),
  );
}

/** The key segment of a command's name: message menu names have capitals and spaces (`Find source`). */
function commandSegment(name: string): string {
  return name.toLowerCase().replace(/\s+/g, '-');
}

/** Every key a command's strings take, with the English the builder wrote (what en-US must hold). */
export function commandKeys(data: CommandBodyJson): Map<string, string> {
  const keys = new Map<string, string>();
  const root = `command.${commandSegment(data.name)}`;
  keys.set(`${root}.name`, data.name);
  if (data.type === ApplicationCommandType.ChatInput || data.type === undefined) {
    keys.set(`${root}.description`, data.description);
    const walk = (options: readonly APIApplicationCommandOption[] | undefined, at: string): void => {
      for (const option of options ?? []) {
        const here = `${at}.${option.name}`;
        keys.set(`${here}.name`, option.name);
        keys.set(`${here}.description`, option.description);
        const choices = 'choices' in option ? (option.choices ?? []) : [];
        for (const choice of choices) keys.set(`${here}.choice.${String(choice.value)}`, choice.name);
        if ('options' in option) walk(option.options, here);
      }
    };
    walk(data.options, root);
  }
  return keys;
}

/** `command` with the localisations of its names and descriptions in every locale `localisedLocales` gives. */
export function localiseCommand<T extends CommandBodyJson>(data: T, translator: Translator): T {
  const locales = localisedLocales(translator);
  const mapOf = (key: string): LocalizationMap | undefined => {
    if (!translator.has(key)) return undefined;
    const map: LocalizationMap = {};
    for (const locale of locales) map[locale] = translator.t(locale, key);
    return map;
  };
  const texts = <N extends { readonly name: string }>(node: N, at: string, described: boolean): N => {
    const names = mapOf(`${at}.name`);
    const descriptions = described ? mapOf(`${at}.description`) : undefined;
    return {
      ...node,
      ...(names === undefined ? {} : { name_localizations: names }),
      ...(descriptions === undefined ? {} : { description_localizations: descriptions }),
    };
  };
  const choice = <C extends APIApplicationCommandOptionChoice>(entry: C, at: string): C => {
    const key = `${at}.choice.${String(entry.value)}`;
    // Only the bot's own words: a name English does not hold under this key is a proper name.
    if (!translator.has(key) || translator.t(SOURCE_LOCALE, key) !== entry.name) return entry;
    const names = mapOf(key);
    return names === undefined ? entry : { ...entry, name_localizations: names };
  };
  const basic = (
    option: APIApplicationCommandBasicOption,
    parent: string,
  ): APIApplicationCommandBasicOption => {
    const at = `${parent}.${option.name}`;
    switch (option.type) {
      case ApplicationCommandOptionType.String:
        if (option.autocomplete === true || option.choices === undefined) return texts(option, at, true);
        return { ...texts(option, at, true), choices: option.choices.map((entry) => choice(entry, at)) };
      case ApplicationCommandOptionType.Integer:
      case ApplicationCommandOptionType.Number:
        if (option.autocomplete === true || option.choices === undefined) return texts(option, at, true);
        return { ...texts(option, at, true), choices: option.choices.map((entry) => choice(entry, at)) };
      default:
        return texts(option, at, true);
    }
  };
  const subcommand = (
    option: APIApplicationCommandSubcommandOption,
    parent: string,
  ): APIApplicationCommandSubcommandOption => {
    const at = `${parent}.${option.name}`;
    const localised = texts(option, at, true);
    return option.options === undefined
      ? localised
      : { ...localised, options: option.options.map((child) => basic(child, at)) };
  };
  const any = (option: APIApplicationCommandOption, parent: string): APIApplicationCommandOption => {
    if (option.type === ApplicationCommandOptionType.Subcommand) return subcommand(option, parent);
    if (option.type !== ApplicationCommandOptionType.SubcommandGroup) return basic(option, parent);
    const at = `${parent}.${option.name}`;
    const localised = texts(option, at, true);
    return option.options === undefined
      ? localised
      : { ...localised, options: option.options.map((child) => subcommand(child, at)) };
  };

  const root = `command.${commandSegment(data.name)}`;
  // Message menus take a localised name and no description (Discord refuses one).
  if (data.type === ApplicationCommandType.Message || data.type === ApplicationCommandType.User) {
    return texts(data, root, false);
  }
  const localised = texts(data, root, true);
  if (!('options' in data) || data.options === undefined) return localised;
  return { ...localised, options: data.options.map((option) => any(option, root)) };
}

/** Every command of the list with its localisations (the list `allCommands` registers and routes from). */
export function localiseCommands(
  commands: readonly Command[],
  translator: Translator = shippedTranslator(),
): Command[] {
  return commands.map((command) =>
    command.kind === 'chat'
      ? { ...command, data: localiseCommand(command.data, translator) }
      : { ...command, data: localiseCommand(command.data, translator) },
  );
}
