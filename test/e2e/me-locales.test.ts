/**
 * `/me` in the member's own language (issue 21: every answer to an interaction, private ones included, in
 * the locale the interaction carries): German for a `de` member, the Polish plural forms for 1, 2 and 5
 * tags, Spanish for `es-419` (Discord's Latin American Spanish falls back to the shipped `es-ES`), English
 * for a language the bot does not ship (`ja`). Board words (tag names, site names) and command names stay
 * as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

/** `/me <subcommand>` in the bot's DM, from a member whose Discord runs in `locale`. */
async function me(
  locale: string,
  subcommand: string,
  options: Readonly<Record<string, string | number | boolean>> = {},
): Promise<string> {
  const reply: RecordedMessage = await h.discord
    .sendCommand({ name: 'me', subcommand, options, channel: 'dm', locale })
    .finalReply();
  return reply.content ?? '';
}

describe('/me in the member’s language', () => {
  it('GIVEN a member whose Discord is in German THEN /me show, unfurl, filter and forget answer in German, board and command words kept', async () => {
    const show = await me('de', 'show');
    expect(show).toMatch(/^Was der Bot über dich speichert \(nur du siehst das\):/);
    expect(show).toContain('• Vorschauen für Links, die du postest: an (Standard).');
    expect(show).toContain('`/me forget` löscht alles auf einmal.');
    expect(show).toContain('deine ID 15 Minuten lang');

    const off = await me('de', 'unfurl', { enabled: false });
    expect(off).toMatch(/^Für Links, die du postest, zeigt der Bot keine Vorschauen mehr an/);
    expect(off).toContain('`/me unfurl enabled:True`');
    expect(await me('de', 'show')).toContain('**aus**');

    const filter = await me('de', 'filter');
    expect(filter).toMatch(/^Du hast auf .+ keinen eigenen Filter\./);
    expect(filter).toContain('`/me filter filter_id:`');
    expect(filter).toContain('Gruppen-DMs');

    expect(await me('de', 'forget')).toMatch(/^Alles gelöscht, was der Bot über dich gespeichert hatte/);
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a member whose Discord is in Polish THEN the count of hidden tags takes the form for 1, 2 and 5', async () => {
    const one = await me('pl', 'hide', { tags: 'gore' });
    expect(one).toContain('Ukryte we wszystkim, o co prosisz: `gore`.');
    expect(one).toContain('Twoja lista zawiera 1 tag (maksymalnie 200).');
    expect(await me('pl', 'hide', { tags: 'guts' })).toContain(
      'Twoja lista zawiera 2 tagi (maksymalnie 200).',
    );
    const five = await me('pl', 'hide', { tags: 'dismemberment, decapitation, blood, gore' });
    expect(five).toContain('Twoja lista zawiera 5 tagów (maksymalnie 200).');
    expect(five).toContain('Już ukryte: `gore`.');
    expect(await me('pl', 'show')).toContain('• Twoje ukryte tagi (5), ukryte we wszystkim');
    expect(await me('pl', 'unhide', { tags: 'blood' })).toContain('Nie są już ukryte: `blood`.');
    await me('pl', 'forget');
    expectNoDiscordProblems(h.discord);
  });

  it('GIVEN a member in Latin American Spanish (es-419) THEN the answers are the shipped Spanish', async () => {
    const show = await me('es-419', 'show');
    expect(show).toMatch(/^Lo que el bot guarda sobre ti \(solo tú ves esto\):/);
    expect(show).toContain('• Tus etiquetas ocultas: ninguna.');
    expect(await me('es-419', 'unfurl', { enabled: true })).toMatch(
      /^Los enlaces que publiques vuelven a recibir tarjetas de enlace/,
    );
    expect(await me('es-419', 'forget')).toMatch(/^Se ha borrado todo lo que el bot guardaba sobre ti/);
  });

  it('GIVEN a German member hiding by an alias THEN the check’s note is German too', async () => {
    const hidden = await me('de', 'hide', { tags: 'gory' });
    expect(hidden).toContain('`gory` ist ein Alias: gespeichert als `gore`.');
    await me('de', 'forget');
  });

  it('GIVEN a member whose Discord is in Japanese (not shipped) THEN the answers are in English', async () => {
    const show = await me('ja', 'show');
    expect(show).toMatch(/^What the bot keeps about you \(only you see this\):/);
    expect(show).toContain('keeps its query and your id for 15 minutes,');
    expect(await me('ja', 'hide', { tags: 'gore' })).toContain(
      'Your list holds 1 tag (at most 200). It applies to your commands',
    );
    expect(await me('ja', 'forget')).toMatch(/^Deleted everything the bot kept about you/);
    expectNoDiscordProblems(h.discord);
  });
});
