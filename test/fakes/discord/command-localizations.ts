/**
 * What Discord checks of a command's `name_localizations` and `description_localizations` beyond the
 * OpenAPI schema (which bounds only their lengths): locale keys that are Discord's locales (the
 * description's `AvailableLocalesEnum`), chat names in the documented pattern and lowercase where the
 * script has case, no two sibling options with one name in a locale, and no descriptions on message or
 * user menus (whose names are free text of 1-32 characters). The apostrophe the docs allow in names is left
 * out: the API refuses it (issue 21, docs/discord-platform.md).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DISCORD_OPENAPI_FILE } from '../../support/shared.js';
import type { Issue } from './validate.js';

/** A chat command's, subcommand's or option's name, as the API takes it (no apostrophe). */
const COMMAND_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** Whether `name` is a valid chat command or option name: the pattern, and lowercase where there is case. */
export const isChatName = (name: unknown): name is string =>
  typeof name === 'string' && COMMAND_NAME.test(name) && name === name.toLowerCase();

const openApiLocales = z.object({
  components: z.object({
    schemas: z.object({
      AvailableLocalesEnum: z.object({ oneOf: z.array(z.object({ const: z.string() })) }),
    }),
  }),
});

let locales: ReadonlySet<string> | undefined;
/** Discord's locale codes as its OpenAPI description lists them (read once: the file is large). */
function discordLocales(): ReadonlySet<string> {
  locales ??= new Set(
    openApiLocales
      .parse(JSON.parse(readFileSync(DISCORD_OPENAPI_FILE, 'utf8')))
      .components.schemas.AvailableLocalesEnum.oneOf.map((entry) => entry.const),
  );
  return locales;
}

const localizationMap = z.record(z.string(), z.string().nullable()).nullable().optional();
const node = z
  .object({
    name: z.string(),
    name_localizations: localizationMap,
    description_localizations: localizationMap,
    options: z.array(z.unknown()).optional(),
    choices: z.array(z.unknown()).optional(),
  })
  .passthrough();

type Path = readonly (string | number)[];
type NameRule = 'chat' | 'menu' | 'choice';

function mapIssues(map: unknown, path: Path, value: (text: string) => boolean, code: string): Issue[] {
  const parsed = localizationMap.safeParse(map);
  if (!parsed.success || parsed.data == null) return [];
  const issues: Issue[] = [];
  for (const [locale, text] of Object.entries(parsed.data)) {
    if (!discordLocales().has(locale)) {
      issues.push({
        path: [...path, locale],
        code: 'BASE_TYPE_CHOICES',
        message: `Value must be one of Discord's locales.`,
      });
    } else if (text !== null && !value(text)) {
      issues.push({ path: [...path, locale], code, message: 'Localized value is invalid' });
    }
  }
  return issues;
}

const NAME_RULES: Readonly<Record<NameRule, (text: string) => boolean>> = {
  chat: isChatName,
  menu: (text) => [...text].length >= 1 && [...text].length <= 32,
  choice: (text) => [...text].length >= 1 && [...text].length <= 100,
};

/** Two siblings (options of one command or subcommand) named alike in one locale, localised or not. */
function siblingIssues(options: readonly unknown[], path: Path): Issue[] {
  const parsed = options.map((option) => node.safeParse(option));
  const localesUsed = new Set(
    parsed.flatMap((result) => (result.success ? Object.keys(result.data.name_localizations ?? {}) : [])),
  );
  const issues: Issue[] = [];
  for (const locale of localesUsed) {
    const seen = new Set<string>();
    parsed.forEach((result, i) => {
      if (!result.success) return;
      const name = result.data.name_localizations?.[locale] ?? result.data.name;
      if (seen.has(name)) {
        issues.push({
          path: [...path, i, 'name_localizations', locale],
          code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
          message: 'Option names must be unique',
        });
      }
      seen.add(name);
    });
  }
  return issues;
}

function nodeIssues(value: unknown, path: Path, rule: NameRule, described: boolean): Issue[] {
  const parsed = node.safeParse(value);
  if (!parsed.success) return [];
  const { name_localizations, description_localizations, options, choices } = parsed.data;
  const issues = [
    ...mapIssues(
      name_localizations,
      [...path, 'name_localizations'],
      NAME_RULES[rule],
      'APPLICATION_COMMAND_INVALID_NAME',
    ),
    ...mapIssues(
      description_localizations,
      [...path, 'description_localizations'],
      (text) => [...text].length >= 1 && [...text].length <= 100,
      'APPLICATION_COMMAND_INVALID_DESCRIPTION',
    ),
  ];
  if (!described && description_localizations != null && Object.keys(description_localizations).length > 0) {
    issues.push({
      path: [...path, 'description_localizations'],
      code: 'APPLICATION_COMMAND_INVALID_DESCRIPTION',
      message: 'Context menu commands cannot have a description',
    });
  }
  (choices ?? []).forEach((choice, i) =>
    issues.push(...nodeIssues(choice, [...path, 'choices', i], 'choice', false)),
  );
  if (options !== undefined) {
    issues.push(...siblingIssues(options, [...path, 'options']));
    options.forEach((option, i) => issues.push(...nodeIssues(option, [...path, 'options', i], 'chat', true)));
  }
  return issues;
}

/** Every problem of one command's localisations, paths under `prefix` (its index in a bulk overwrite). */
export function localizationIssues(command: unknown, prefix: Path): Issue[] {
  const type = z.object({ type: z.number().optional() }).passthrough().safeParse(command);
  const menu = type.success && (type.data.type === 2 || type.data.type === 3);
  return nodeIssues(command, prefix, menu ? 'menu' : 'chat', !menu);
}
