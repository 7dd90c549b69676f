/**
 * `/feed` answers the admin in their own language (issue 21): the member's Discord locale picks the shipped
 * catalogue (es-419 → es-ES; one the bot does not ship → English), plurals follow the language's rules, and
 * what the board or the server wrote (queries, `safe`, command names) stays as written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(interval = '1m'): Promise<Harness> {
  h = await startHarness({
    env: { FEED_INTERVAL: interval, FEED_SETTLE: '0' },
    registry: { budget: ROOMY_BUDGET },
    // No rounds but the one at start: these tests read answers, not posts.
    feedTickMs: 3_600_000,
  });
  return h;
}

async function feedCommand(
  harness: Harness,
  locale: string,
  subcommand: string,
  options: Record<string, string> = {},
): Promise<string> {
  const reply = await harness.discord
    .sendCommand({
      name: 'feed',
      subcommand,
      options,
      channel: 'plain',
      userId: harness.discord.guild.ownerId,
      locale,
    })
    .finalReply();
  return reply.content;
}

function idOf(content: string): string {
  const id = /`([a-z0-9]{6})`/.exec(content)?.[1];
  if (id === undefined) throw new Error(`no feed id in: ${content}`);
  return id;
}

describe('/feed in the member’s language', () => {
  it('GIVEN a German admin THEN add, list, pause, resume and remove answer in German', async () => {
    const harness = await start();
    const plain = harness.discord.guild.channels.plain;
    const added = await feedCommand(harness, 'de', 'add', { query: 'pony', channel: plain });
    expect(added).toMatch(
      /^Feed `[a-z0-9]{6}` hinzugefügt: Neue Bilder von .* zu `pony` werden ab jetzt in <#\d+> gepostet, geprüft wird jede Minute\.\n/,
    );
    expect(added).toContain(
      'Der Kanal ist nicht altersbeschränkt: Dort werden nur Bilder mit der Einstufung safe gepostet.',
    );
    const id = idOf(added);

    const list = await feedCommand(harness, 'de', 'list');
    expect(list).toMatch(/^\*\*Feeds dieses Servers\*\* \(1 von 10\):\n/);
    expect(list).toMatch(/<#\d+> · .* · `pony` · noch nichts gepostet · \*\*läuft\*\*$/);

    expect(await feedCommand(harness, 'de', 'pause', { feed: id })).toBe(
      `Feed \`${id}\` pausiert. Mit /feed resume läuft er dort weiter, wo er aufgehört hat.`,
    );
    expect(await feedCommand(harness, 'de', 'list')).toContain('**von einem Admin pausiert**');
    expect(await feedCommand(harness, 'de', 'resume', { feed: id })).toMatch(
      /^Feed `[a-z0-9]{6}` fortgesetzt: /,
    );
    expect(await feedCommand(harness, 'de', 'resume', { feed: id })).toBe(`Feed \`${id}\` läuft bereits.`);
    expect(await feedCommand(harness, 'de', 'remove', { feed: id })).toMatch(
      /^Feed `[a-z0-9]{6}` entfernt: Über ihn wird nichts mehr in <#\d+> gepostet\.$/,
    );
    expect(await feedCommand(harness, 'de', 'list')).toBe(
      'Dieser Server hat keine Feeds. Füge einen mit /feed add hinzu.',
    );
  });

  it.each([
    ['1m', 'co minutę'],
    ['2m', 'co 2 minuty'],
    ['5m', 'co 5 minut'],
  ])('GIVEN a Polish admin and FEED_INTERVAL %s THEN the confirmation says "%s"', async (interval, every) => {
    const harness = await start(interval);
    const added = await feedCommand(harness, 'pl', 'add', {
      query: 'pony',
      channel: harness.discord.guild.channels.plain,
    });
    expect(added).toMatch(/^Dodano feed `[a-z0-9]{6}`: od teraz nowe obrazy z .* pasujące do `pony`/);
    expect(added).toContain(`, sprawdzane ${every}.\n`);
  });

  it('GIVEN an admin whose Discord is in Latin American Spanish THEN the answers are the shipped Spanish', async () => {
    const harness = await start();
    const added = await feedCommand(harness, 'es-419', 'add', {
      query: 'pony',
      channel: harness.discord.guild.channels.plain,
    });
    expect(added).toMatch(/^Feed `[a-z0-9]{6}` añadido: a partir de ahora, .* cada minuto\.\n/);
    expect(added).toContain('No es un canal con restricción de edad');
    expect(await feedCommand(harness, 'es-419', 'list')).toMatch(
      /^\*\*Feeds de este servidor\*\* \(1 de 10\):/,
    );
  });

  it('GIVEN an admin in a language the bot does not ship (ja) THEN the answers are English', async () => {
    const harness = await start();
    const added = await feedCommand(harness, 'ja', 'add', {
      query: 'pony',
      channel: harness.discord.guild.channels.plain,
    });
    expect(added).toMatch(
      /^Feed `[a-z0-9]{6}` added: new .* images matching `pony` go to <#\d+>, checked every minute, from now on\.\nIt is not an age-restricted channel: only images rated safe are posted there\.$/,
    );
    expect(await feedCommand(harness, 'ja', 'pause', { feed: idOf(added) })).toMatch(
      /^Feed `[a-z0-9]{6}` paused\. \/feed resume starts it again from where it stopped\.$/,
    );
  });
});
