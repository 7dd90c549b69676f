/**
 * `/settings` answers in the language of the member who used it (issue 21: "every answer to an
 * interaction ... the member's locale from the interaction"), through the local Discord and the local
 * board: German confirmations, listings, questions and buttons; Polish plural forms; a regional variant
 * (`es-419`) gets the shipped Spanish; a language the bot does not ship (`ja`) gets English. Board words
 * (tag names) and command names stay as written.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { storedRecord, writeRecord } from '../support/settings.js';
import type { RecordedMessage } from '../fakes/discord/index.js';

let h: Harness;
let guildId: string;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  guildId = h.discord.guild.id;
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});
beforeEach(async () => {
  await writeRecord(h, guildId, { siteId: undefined, filters: {} });
});

/** `/settings <subcommand>` by the server's owner, in `locale`. */
function settingsIn(
  locale: string,
  subcommand: string,
  options: Readonly<Record<string, string | number | boolean>> = {},
  group?: string,
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommand,
      ...(group === undefined ? {} : { subcommandGroup: group }),
      options,
      channel: 'plain',
      userId: h.discord.guild.ownerId,
      locale,
    })
    .finalReply();
}

function labelsOf(message: RecordedMessage): string[] {
  return (
    JSON.stringify(message.components)
      .match(/"label":"[^"]*"/g)
      ?.map((pair) => pair.slice('"label":"'.length, -1)) ?? []
  );
}

describe('a member whose Discord is in German', () => {
  it('GIVEN /settings tags hide with a tag and an alias THEN the confirmation, the alias note and the sizes are German, the tag names as the board writes them', async () => {
    const reply = await settingsIn('de', 'hide', { tags: 'Gore, ai art' }, 'tags');
    expect(reply.content).toContain('Ausgeblendet auf diesem Server: `gore`, `ai generated`.');
    expect(reply.content).toContain('`ai art` ist ein Alias: gespeichert als `ai generated`.');
    expect(reply.content).toContain(
      'Jetzt 2 ausgeblendet und 0 als Spoiler markiert (höchstens 200 je Liste).',
    );
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(['gore', 'ai generated']);
  });

  it('GIVEN an unknown name THEN the note and its suggestion are German', async () => {
    const reply = await settingsIn('de', 'spoiler', { tags: 'gorgeou, blood' }, 'tags');
    expect(reply.content).toContain('Als Spoiler markiert auf diesem Server: `blood`.');
    expect(reply.content).toMatch(/`gorgeou` ist kein Tag auf .*\. Meintest du `gorgeous`\?/);
  });

  it('GIVEN /settings show THEN every line of the listing is German', async () => {
    await writeRecord(h, guildId, {
      siteId: undefined,
      filters: {},
      hiddenTags: ['gore'],
      imageReferences: false,
    });
    const reply = await settingsIn('de', 'show');
    expect(reply.content).toMatch(/^Website: \*\*.*\*\* \(.*\) \(der Standard\)$/m);
    expect(reply.content).toContain(
      'Bildverweise: aus (`>>123` im Chat bekommt eine Karte; /settings references)',
    );
    expect(reply.content).toContain('Kanäle mit eigenen Einstellungen: keine (/settings channel).');
    expect(reply.content).toContain('Ausgeblendete Tags (1 von 200): `gore`');
    expect(reply.content).toContain('Als Spoiler markierte Tags: keine.');
    expect(reply.content).not.toMatch(/Hidden tags|Image references|Site:/);
  });

  it('GIVEN /settings channel reset:True THEN the confirmation is German and names the channel', async () => {
    const { spoiler } = h.discord.guild.channels;
    const reply = await settingsIn('de', 'channel', { channel: spoiler, reset: true });
    expect(reply.content).toBe(
      `In <#${spoiler}>: wieder die Einstellungen des Servers (Website, Filter, Karten für Links, Bildverweise und Tags).`,
    );
  });

  it('GIVEN /settings reset THEN the question and its buttons are German, and Cancel pressed in German answers in German', async () => {
    await writeRecord(h, guildId, {
      siteId: undefined,
      filters: {},
      hiddenTags: ['gore'],
      imageReferences: false,
    });
    const question = await settingsIn('de', 'reset');
    expect(question.content).toMatch(
      /^Die Einstellungen dieses Servers zurücksetzen\? Das löscht die ausgeschalteten Bildverweise, seine 1 ausgeblendeten und 0 als Spoiler markierten Tags\./,
    );
    expect(labelsOf(question)).toEqual(['Alles zurücksetzen', 'Abbrechen']);
    const cancelled = await h.discord
      .sendButton({
        message: question,
        customId: 'set:reset-no',
        userId: h.discord.guild.ownerId,
        locale: 'de',
      })
      .finalReply();
    expect(cancelled.content).toBe('Es wurde nichts zurückgesetzt.');
  });
});

describe('the panel in German', () => {
  it('GIVEN /settings panel THEN its heading, listing, buttons and placeholders are German, its custom ids as ever', async () => {
    const panel = await settingsIn('de', 'panel');
    const tree = JSON.stringify(panel.components);
    expect(tree).toContain('## Einstellungen dieses Servers');
    expect(tree).toContain('Bildverweise: an (`>>123` im Chat bekommt eine Karte; /settings references)');
    expect(labelsOf(panel)).toEqual(
      expect.arrayContaining(['Bildverweise: an', 'Tags ausblenden…', 'Server zurücksetzen…']),
    );
    expect(tree).toContain('"placeholder":"Eine vorgegebene Tag-Gruppe ausblenden"');
    expect(tree).toContain('"custom_id":"panel:form:s:hide"');
  });
});

describe('Polish plural forms', () => {
  it.each([
    [1, '1 ukryty tag'],
    [2, '2 ukryte tagi'],
    [5, '5 ukrytych tagów'],
  ])('GIVEN a server with %i hidden tags THEN the reset question says "%s"', async (count, words) => {
    const hiddenTags = ['gore', 'blood', 'grimdark', 'semi-grimdark', 'grotesque'].slice(0, count);
    await writeRecord(h, guildId, { siteId: undefined, filters: {}, hiddenTags });
    const question = await settingsIn('pl', 'reset');
    expect(question.content).toContain(`Zostaną usunięte: ${words} i 0 tagów pod spoilerem.`);
    expect(labelsOf(question)).toEqual(['Zresetuj wszystko', 'Anuluj']);
  });
});

describe('regional variants and languages not shipped', () => {
  it('GIVEN a member in es-419 THEN /settings references answers in the shipped Spanish', async () => {
    const reply = await settingsIn('es-419', 'references', { enabled: false });
    expect(reply.content).toBe(
      'Referencias a imágenes desactivadas: `>>123` en el chat se deja tal cual (los enlaces a imágenes siguen recibiendo tarjetas).',
    );
  });

  it('GIVEN a member in ja THEN the answers are English', async () => {
    const references = await settingsIn('ja', 'references', { enabled: true });
    expect(references.content).toBe(
      "Image references on: `>>123` in chat gets the card of image 123 on this server's site.",
    );
    const reply = await settingsIn('ja', 'hide', { tags: 'gore' }, 'tags');
    expect(reply.content).toContain('Hidden in this server: `gore`.');
    expect(reply.content).toContain('Now 1 hidden and 0 spoilered (at most 200 each).');
  });
});
