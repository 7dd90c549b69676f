/**
 * /search, /tag and /reverse in the member's own language (issue 21: every answer to an interaction in the
 * locale it carries), through the local Discord: a `de` member gets German, a `pl` member Polish, in the
 * same server at once; the grid's heading, footer and buttons, a card's "n of total", the tag card's
 * fields, the reverse search's "match n of total" and "no match". The member's query, tag names, site
 * names and numbers' digits stay as they are.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { embedOf, footerText } from '../support/messages.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.booru.clearFaults();
  expectNoDiscordProblems(h.discord);
});

/** Every string in a message (content, embeds, components), for finding the bot's words in it. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

function labels(message: RecordedMessage): string[] {
  const out: string[] = [];
  const walk = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const item of list as Record<string, unknown>[]) {
      if (typeof item['label'] === 'string') out.push(item['label']);
      walk(item['components']);
    }
  };
  walk(message.components);
  return out;
}

async function command(
  locale: string,
  name: string,
  options: Readonly<Record<string, string | number | boolean>>,
): Promise<RecordedMessage> {
  return h.discord.sendCommand({ name, options, channel: 'plain', locale }).finalReply();
}

async function rawImageJson(id: number): Promise<unknown> {
  const response = await fetch(`${h.booru.url}/api/v1/json/images/${id}`);
  return ((await response.json()) as { image: unknown }).image;
}

/** The board's reverse search answers `ids` once. */
async function reverseFinds(ids: readonly number[]): Promise<void> {
  const images = await Promise.all(ids.map(rawImageJson));
  h.booru.inject({
    path: '/api/v1/json/search/reverse',
    times: 1,
    fault: {
      kind: 'status',
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ images, interactions: [], total: images.length }),
    },
  });
}

describe('/search, /tag and /reverse in the member’s language', () => {
  it('GIVEN a German member THEN the grid, a card page, the tag card and the reverse search answer in German', async () => {
    const grid = await command('de', 'search', { query: 'pony', view: 'grid' });
    const text = strings(grid.components).join('\n');
    expect(text).toMatch(/^\*\*Suche:\*\* pony · 1–\d+ von \d+/m);
    expect(text).toMatch(/^-# .+ · Seite 1 von \d+$/m);
    expect(labels(grid)).toEqual(expect.arrayContaining(['Zurück', 'Weiter', 'Zufällig']));
    expect(text).toContain('Eines davon als ganze Karte zeigen (nur für dich)');

    const card = await command('de', 'search', { query: 'pony', private: true });
    expect(footerText(card)).toMatch(/1 von \d+$/);
    expect(labels(card)).toEqual(expect.arrayContaining(['Weiter', 'Öffentlich posten']));

    const none = await command('de', 'search', { query: 'no such tag anywhere' });
    expect(none.content).toBe(
      'Zu dieser Suche passen keine Bilder. Außerhalb altersbeschränkter Kanäle werden nur Bilder mit der Einstufung `safe` durchsucht.',
    );

    const tag = embedOf(await command('de', 'tag', { name: 'pony' }));
    expect(tag.title).toBe('pony');
    expect(tag.fields?.map((field) => field.name)).toEqual(
      expect.arrayContaining(['Kategorie', 'Bilder', 'Beispiel']),
    );

    await reverseFinds([IDS.manySources, IDS.noSources]);
    const reverse = await command('de', 'reverse', { url: `${h.booru.url}/samples/de-two.png` });
    expect(footerText(reverse)).toMatch(/Treffer 1 von 2$/);
    expect(labels(reverse)).toEqual(expect.arrayContaining(['Zurück', 'Weiter']));

    await reverseFinds([]);
    const nothing = await command('de', 'reverse', { url: `${h.booru.url}/samples/de-none.png` });
    expect(nothing.content).toBe('Auf der Website wurden keine passenden Bilder gefunden.');
  });

  it('GIVEN a Polish member in the same server THEN the same answers are Polish', async () => {
    const grid = await command('pl', 'search', { query: 'pony', view: 'grid' });
    const text = strings(grid.components).join('\n');
    expect(text).toMatch(/^\*\*Wyszukiwanie:\*\* pony · 1–\d+ z \d+/m);
    expect(text).toMatch(/^-# .+ · strona 1 z \d+$/m);
    expect(labels(grid)).toEqual(expect.arrayContaining(['Wstecz', 'Dalej', 'Losuj']));

    const card = await command('pl', 'search', { query: 'pony', private: true });
    expect(footerText(card)).toMatch(/1 z \d+$/);
    expect(labels(card)).toEqual(expect.arrayContaining(['Opublikuj dla wszystkich']));

    const tag = embedOf(await command('pl', 'tag', { name: 'pony' }));
    expect(tag.fields?.map((field) => field.name)).toEqual(
      expect.arrayContaining(['Kategoria', 'Obrazy', 'Przykład']),
    );

    await reverseFinds([IDS.manySources, IDS.noSources]);
    const reverse = await command('pl', 'reverse', { url: `${h.booru.url}/samples/pl-two.png` });
    expect(footerText(reverse)).toMatch(/trafienie 1 z 2$/);

    await reverseFinds([]);
    const nothing = await command('pl', 'reverse', { url: `${h.booru.url}/samples/pl-none.png` });
    expect(nothing.content).toBe('Nie znaleziono w serwisie pasujących obrazów.');

    // English stays the default: a member whose language the bot does not ship reads English.
    const english = await command('ja', 'search', { query: 'pony', view: 'grid' });
    expect(strings(english.components).join('\n')).toMatch(/^\*\*Search:\*\* pony · 1–\d+ of \d+/m);
  });
});
