/**
 * Tag suggestions in the language of the member typing (issue 21): the few words autocomplete writes
 * itself (`alias → tag`, the tag's image count) come from the catalogue (`autocomplete.tag.*`), so a count
 * is formatted for the member's language (`12.345` in German), and `/tag`, `/search` and `/feed add` pass
 * the member's locale. Tag names stay as the board wrote them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command, CommandContext } from '../../../commands/shared/context.js';
import { suggestionLabel } from '../../../commands/shared/tag-suggestions.js';
import type { PhilomenaClient } from '../../../src/philomena/client/types.js';
import { tagSchema, type Tag } from '../../../src/philomena/schemas.js';
import { fakeInteraction, startCommandBed, type CommandBed } from '../../support/commands.js';
import { shippedSays } from '../../support/locales.js';
import { sayIn } from '../../../src/i18n/index.js';

/** A tag as the board's tag search gives it, with more images than the fake board has. */
function boardTag(name: string, images: number): Tag {
  return tagSchema.parse({ id: images, name, slug: name, images, description: '', short_description: '' });
}

/** A board whose tag search answers with `tags`, whatever is asked. */
function boardWith(tags: readonly Tag[]): Pick<PhilomenaClient, 'searchTags'> {
  return { searchTags: () => Promise.resolve({ items: [...tags], total: tags.length }) };
}

describe('a suggestion label in each language', () => {
  it('GIVEN 12345 images THEN the count is formatted for German, French and English', () => {
    const pony = { name: 'pony', images: 12345 };
    expect(suggestionLabel(pony, sayIn('de'))).toBe('pony (12.345)');
    expect(suggestionLabel(pony, sayIn('fr'))).toBe('pony (12\u202f345)');
    expect(suggestionLabel(pony, sayIn('en-US'))).toBe('pony (12,345)');
  });

  it('GIVEN an alias THEN every shipped language keeps both names as the board wrote them', () => {
    for (const { locale, say } of shippedSays()) {
      const label = suggestionLabel({ name: 'oc:littlepip', alias: 'littlepip', images: undefined }, say);
      expect(label, locale).toContain('littlepip');
      expect(label, locale).toContain('oc:littlepip');
    }
  });
});

describe('autocomplete answers in the member’s language', () => {
  let bed: CommandBed;
  beforeAll(async () => {
    bed = await startCommandBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  function command(name: string): Command {
    const found = bed.features.commands.find((c) => c.data.name === name);
    if (found === undefined) throw new Error(`no command ${name}`);
    return found;
  }

  /** The choices `name` offers a German member typing `typed` into `option`, the board holding `pony`. */
  async function germanChoices(
    name: string,
    option: string,
    typed: string,
    extra: { readonly subcommand?: string; readonly manageServer?: boolean } = {},
  ): Promise<string[]> {
    const interaction = fakeInteraction(name, { [option]: typed }, 'plain', { ...extra, focused: option });
    const real = await bed.context(interaction);
    const board = boardWith([boardTag('pony', 1234567)]);
    const context: CommandContext = {
      ...real,
      locale: 'de',
      registry: { ...real.registry, client: () => board as PhilomenaClient },
    };
    const run = command(name);
    if (run.kind !== 'chat' || run.autocomplete === undefined) throw new Error(`${name} has no autocomplete`);
    const signal = new AbortController().signal;
    const choices = await run.autocomplete(interaction as never, { ...context, signal });
    return choices.map((choice) => choice.name);
  }

  it('GIVEN a German member typing in /tag THEN the count reads 1.234.567', async () => {
    expect(await germanChoices('tag', 'name', 'pon')).toEqual(['pony (1.234.567)']);
  });

  it('GIVEN a German member typing a query in /search THEN the count reads 1.234.567', async () => {
    expect(await germanChoices('search', 'query', 'safe, pon')).toEqual(['pony (1.234.567)']);
  });

  it('GIVEN a German admin typing a query in /feed add THEN the count reads 1.234.567', async () => {
    const names = await germanChoices('feed', 'query', 'pon', { subcommand: 'add', manageServer: true });
    expect(names).toEqual(['pony (1.234.567)']);
  });
});
