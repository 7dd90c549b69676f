/**
 * Each shipped language is offered by its own name, from the runtime's own data (Intl.DisplayNames), so a
 * translator who adds a catalogue adds no name in the code: distinct names, in their own script.
 */
import { describe, expect, it } from 'vitest';
import { languageChoices, languageName } from '../../../commands/settings/language.js';
import { shippedTranslator } from '../../../src/i18n/index.js';

describe('languages by their own names', () => {
  it('GIVEN the shipped languages THEN each is named as its speakers write it, capitalised', () => {
    expect(languageName('de')).toBe('Deutsch');
    expect(languageName('ru')).toBe('Русский');
    expect(languageName('pt-BR')).toBe('Português');
    expect(languageName('es-ES')).toBe('Español');
  });

  it('GIVEN the choices THEN Discord’s language first, then every shipped language, names distinct and within 100 characters', () => {
    const choices = languageChoices();
    expect(choices[0]?.value).toBe('discord');
    expect(choices.slice(1).map((c) => c.value)).toEqual([...shippedTranslator().locales]);
    const names = choices.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(100);
  });

  it('GIVEN a code the runtime cannot name THEN the code itself', () => {
    expect(languageName('qq')).toBe('qq');
  });
});
