/**
 * Every error a member reads, in their own language (issue 21): each identifier of USER_ERROR_IDS and of
 * admission has its catalogue key `error.<id>` in every shipped language, with the params the code passes
 * as its placeholders (found by reading the sources, as error-texts.test.ts finds the identifiers), and the
 * member's `interaction.locale` picks the language, end to end through the local Discord.
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_ERROR_IDS, userErrorText } from '../../../commands/shared/error-texts.js';
import { ADMISSION_IDS, createAdmissions, RESTARTING_TEXT } from '../../../src/discord/admission.js';
import {
  errorKey,
  inLocale,
  messageParams,
  UserFacingError,
  type UserErrorText,
} from '../../../src/discord/failures.js';
import {
  BadQueryError,
  NotFoundError,
  RateLimitedError,
  SettingsUnavailableError,
  SiteBlockedError,
  SiteUnavailableError,
} from '../../../src/errors.js';
import { createTranslator, loadCatalogues, shippedTranslator } from '../../../src/i18n/index.js';
import type { InteractionHandle, RecordedMessage } from '../../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../../support/checks.js';
import { startHarness, type Harness } from '../../support/harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const catalogues = loadCatalogues();
const ALL_IDS: readonly string[] = [...USER_ERROR_IDS, ...Object.values(ADMISSION_IDS)];

/** Every placeholder a message names, in plural and select branches too. */
function placeholders(elements: readonly MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (
      element.type === TYPE.argument ||
      element.type === TYPE.number ||
      element.type === TYPE.date ||
      element.type === TYPE.time
    )
      out.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      out.add(element.value);
      for (const option of Object.values(element.options)) placeholders(option.value, out);
    }
  }
  return out;
}

/**
 * The plural categories a count up to 10,000 takes in `locale` (one and other in German, Spanish, French
 * and Portuguese; one, few, many and other in Polish and Russian): the forms each plural must have.
 * (French, Spanish and Portuguese have a "many" for millions, which falls back to "other".)
 */
function pluralForms(locale: string): Set<string> {
  const rules = new Intl.PluralRules(locale);
  const forms = new Set<string>(['other']);
  for (let n = 0; n <= 10_000; n += 1) forms.add(rules.select(n));
  return forms;
}

/** Each plural of a message with the plural forms of its language it lacks (`=0` and the like aside). */
function missingPluralForms(elements: readonly MessageFormatElement[], locale: string): string[] {
  const needed = pluralForms(locale);
  const missing: string[] = [];
  for (const element of elements) {
    if (element.type === TYPE.plural) {
      for (const category of needed)
        if (!(category in element.options)) missing.push(`${element.value}:${category}`);
    }
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options))
        missing.push(...missingPluralForms(option.value, locale));
    }
  }
  return missing;
}

/** The names in a `params: { a, b: x }` object literal (its string literals emptied first: `join(', ')`). */
function paramNames(literal: string): string[] {
  return literal
    .replace(/'[^']*'/g, "''")
    .split(',')
    .map((part) => (part.split(':')[0] ?? '').trim())
    .filter((name) => name !== '');
}

/**
 * The params the sources pass with each identifier: `new UserFacingError('<id>', text, { params: {...} })`
 * and `{ id: '<id>', params: {...}, text }` (error-texts.ts, admission.ts). Every site of one identifier
 * must pass the same names; one without params passes none.
 */
async function paramsInSources(): Promise<Map<string, Set<string>>> {
  const files: string[] = [];
  for (const dir of ['src', 'commands']) {
    for (const entry of await readdir(path.join(ROOT, dir), { recursive: true })) {
      if (entry.endsWith('.ts')) files.push(path.join(ROOT, dir, entry));
    }
  }
  const found = new Map<string, Set<string>>();
  const site = /new UserFacingError\(\s*'([a-z0-9.-]+)'|\bid: '([a-z0-9-]+\.[a-z0-9.-]+)',/g;
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const sites = [...text.matchAll(site)];
    sites.forEach((match, index) => {
      const id = match[1] ?? match[2] ?? '';
      const end = sites[index + 1]?.index ?? text.length;
      // The call or object of this site only: up to its closing `);` (at a line's end: a text may hold
      // one) or its `expected:`.
      const rest = text.slice(match.index, end);
      const stop = rest.search(/\);\s*$|expected:/m);
      const own = stop === -1 ? rest : rest.slice(0, stop);
      const literal = /params: \{([^}]*)\}/.exec(own)?.[1];
      const names = new Set(literal === undefined ? [] : paramNames(literal));
      const before = found.get(id);
      if (before !== undefined)
        expect([...names].sort(), `${id} in ${path.relative(ROOT, file)}`).toEqual([...before].sort());
      found.set(id, names);
    });
  }
  return found;
}

describe('the catalogues: error.<id>', () => {
  it('GIVEN every error identifier THEN each shipped language has its key, with the placeholders of the params the code passes, and every plural form of the language', async () => {
    const passed = await paramsInSources();
    // The texts that are not built here: the board's wait (error-texts.ts), admission's.
    passed.set(ADMISSION_IDS.command, new Set(['when']));
    passed.set(ADMISSION_IDS.button, new Set(['when']));
    expect(catalogues.size).toBeGreaterThanOrEqual(7);
    const problems: string[] = [];
    for (const id of ALL_IDS) {
      const params = Object.fromEntries([...(passed.get(id) ?? [])].map((name) => [name, 1]));
      const expected = Object.keys(messageParams(params)).sort();
      for (const [locale, catalogue] of catalogues) {
        const message = catalogue[errorKey(id)];
        if (message === undefined) {
          problems.push(`${locale}: no ${errorKey(id)}`);
          continue;
        }
        const ast = parse(message);
        const names = [...placeholders(ast)].sort();
        if (names.join() !== expected.join())
          problems.push(
            `${locale} ${id}: placeholders ${names.join()} but the code passes ${expected.join()}`,
          );
        for (const form of missingPluralForms(ast, locale))
          problems.push(`${locale} ${id}: no plural ${form}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('GIVEN the English catalogue THEN it reads as the code writes, byte for byte', () => {
    const english = createTranslator(catalogues);
    const ctx = { site: 'derpibooru', path: '/api/v1/json/images/1' };
    const cases: unknown[] = [
      new NotFoundError('gone', ctx),
      new BadQueryError('Imbalanced parentheses.', ctx),
      new RateLimitedError('429', 12_300, ctx),
      new SiteUnavailableError('open', 'circuit-open', { ...ctx, retryAfterMs: 180_000 }),
      new SiteUnavailableError('open', 'circuit-open', { ...ctx, retryAfterMs: 119_000 }),
      new SiteUnavailableError('timeout', 'timeout', ctx),
      new SiteBlockedError('blocked', 960_000, { site: 'derpibooru', siteName: 'Derpibooru' }),
      new SiteBlockedError('blocked', 90_000, { site: 'derpibooru', siteName: 'my_*booru*' }),
      new SettingsUnavailableError('write', '1'),
      new TypeError('a bug'),
    ];
    for (const error of cases) {
      const { id, params, text } = userErrorText(error);
      expect(english.t('en-US', errorKey(id), messageParams(params)), id).toBe(text);
    }
    expect(english.t('en-US', errorKey(ADMISSION_IDS.restarting))).toBe(RESTARTING_TEXT);
  });
});

describe('userErrorText in the member’s language', () => {
  const blocked = new SiteBlockedError('blocked', 16 * 60_000, {
    site: 'derpibooru',
    siteName: 'Derpibooru',
  });

  it('GIVEN de, es-419, pl and ja THEN German, Spanish (the shipped variant), Polish with its plural, and English', () => {
    expect(userErrorText(blocked, 'de').text).toBe(
      'Derpibooru hat die Anfragen des Bots für eine Weile angehalten (es waren ihm zu viele). Versuche es in 16 Minuten noch einmal.',
    );
    expect(userErrorText(blocked, 'es-419').text).toMatch(/^Derpibooru ha pausado .* en 16 minutos\.$/);
    expect(userErrorText(blocked, 'pl').text).toMatch(/za 16 minut\.$/);
    expect(userErrorText(new RateLimitedError('429', 2_000, { site: 'derpibooru' }), 'ru').text).toBe(
      'Сайт перегружен. Попробуйте снова через 2 с.',
    );
    expect(userErrorText(blocked, 'ja')).toEqual(userErrorText(blocked));
    expect(userErrorText(blocked, 'ja').text).toMatch(/^Derpibooru has paused/);
  });

  it('GIVEN a feature’s error with params THEN the translation carries them, numbers in the language’s form', () => {
    const tooMany = new UserFacingError('tags.too-many', 'Give at most 25 tags …', {
      params: { max: 25, given: 1234 },
    });
    expect(userErrorText(tooMany, 'de').text).toBe(
      'Gib höchstens 25 Tags auf einmal an (das waren 1.234); füge den Rest in einem weiteren Durchgang hinzu.',
    );
    expect(userErrorText(tooMany, 'de').id).toBe('tags.too-many');
  });

  it('GIVEN an identifier the catalogue lacks, or a translation whose placeholder the error does not carry THEN the error’s own English text', () => {
    const unknown: UserErrorText = { id: 'someone.forgot', text: 'Plain English.', expected: true };
    expect(inLocale(unknown, 'de')).toEqual(unknown);
    const translator = createTranslator(
      new Map([
        ['en-US', { 'error.x.y': 'X {n}.' }],
        ['de', { 'error.x.y': 'X {n} {missing}.' }],
      ]),
    );
    const described: UserErrorText = { id: 'x.y', params: { n: 1 }, text: 'X 1.', expected: true };
    expect(inLocale(described, 'de', translator).text).toBe('X 1.');
    expect(inLocale({ ...described, id: 'x.y' }, 'en-GB', translator).text).toBe('X 1.');
  });

  it('GIVEN a member over the limit or a restart THEN admission answers in their language, Discord’s timestamp kept', () => {
    const admissions = createAdmissions({ commandRateLimit: { limit: 1, windowMs: 60_000 }, now: () => 0 });
    const member = { user: { id: '1' }, locale: 'fr' } as const;
    expect(admissions.admit(member, 'command').ok).toBe(true);
    const refused = admissions.admit(member, 'command');
    expect(refused.ok ? '' : refused.text).toMatch(
      /^Tu utilises des commandes trop vite\. Réessaie <t:\d+:R>\.$/,
    );
    admissions.setAccepting(false);
    const restarting = admissions.admit({ ...member, locale: 'pt-BR' }, 'button');
    expect(restarting.ok ? '' : restarting.text).toBe(
      'O bot está reiniciando. Tente novamente em instantes.',
    );
    expect(shippedTranslator().resolve('pt-PT')).toBe('pt-BR');
  });
});

describe('end to end: the interaction’s locale', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectNoDiscordProblems(h.discord);
    await h.close();
  });

  /** The private follow-up an error is (after a public "thinking…" was removed). */
  async function privateAnswer(handle: InteractionHandle): Promise<RecordedMessage> {
    await handle.acknowledged;
    return h.discord.waitFor(() => handle.followUps()[0], 15_000);
  }

  it('GIVEN /settings in a DM from a German member THEN the refusal is German', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'settings', subcommand: 'show', channel: 'dm', locale: 'de' })
      .finalReply();
    expect(reply.content).toBe(
      'Einstellungen gehören zu einem Server: Verwende diesen Befehl auf einem Server.',
    );
  });

  it.each([
    ['es-419', 'Indica un ID de imagen (como 1234) o un enlace a una imagen de un sitio compatible.'],
    ['de', 'Gib eine Bild-ID (wie 1234) oder einen Link zu einem Bild auf einer unterstützten Website an.'],
    ['ja', 'Give an image id (like 1234) or a link to an image on a supported site.'],
  ])(
    'GIVEN a bad /image id from a member in %s THEN the error is in their language',
    async (locale, text) => {
      const slash = h.discord.sendCommand({
        name: 'image',
        options: { id: 'not an image' },
        channel: 'plain',
        locale,
      });
      expect((await privateAnswer(slash)).content).toBe(text);
    },
  );
});
