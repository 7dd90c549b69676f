/**
 * Whose language (issue 21), end to end through the local Discord and the local board, in one server whose
 * preferred locale is German: each member reads their own language in their answers; an unfurl reply
 * (nobody asked for it) follows the server's preferred locale as Discord reports it now, so a GUILD_UPDATE
 * to Spanish turns it Spanish; a language set with `/settings language` on a channel wins there (Russian),
 * a thread following its channel; and `/settings language` answers the admin in the admin's own language.
 * The words checked are the unfurl reply's own ("…and 1 more link not shown") and the cards' credit label:
 * a public /image card is in its asker's language, a link card beside it in the server's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { storedRecord, writeRecord } from '../support/settings.js';
import { shippedTranslator } from '../../src/i18n/index.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET }, discord: { guildLocales: ['de'] } });
  await writeRecord(h, h.discord.guild.id, { siteId: undefined, filters: {} });
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});

/** A message with four image links (three get cards) and the reply's own line under them. */
async function unfurlLine(channel: ChannelTarget): Promise<string> {
  const links = [IDS.safe, IDS.fixtureFirst, IDS.fixtureSecond, IDS.fixture2020].map(
    (id) => `${h.booru.url}/images/${id}`,
  );
  const posted = await h.discord.sendMessage({ channel, content: links.join(' ') });
  const reply: RecordedMessage = await h.discord.waitFor(() => posted.replies()[0]);
  return reply.content;
}

/** Checks again until `check` holds (an event on its way to the bot). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 40; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('never held');
}

function me(locale: string, userId: string): Promise<string> {
  return h.discord
    .sendCommand({ name: 'me', subcommand: 'show', channel: 'plain', userId, locale })
    .finalReply()
    .then((reply) => reply.content);
}

function language(locale: string, options: Readonly<Record<string, string>> = {}): Promise<string> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommand: 'language',
      options,
      channel: 'plain',
      userId: h.discord.guild.ownerId,
      locale,
    })
    .finalReply()
    .then((reply) => reply.content);
}

describe('one server in German, members in their own languages', () => {
  it('GIVEN a Polish and a French member THEN each reads their own language in their answers', async () => {
    expect(await me('pl', h.discord.guild.memberId)).toMatch(/^Co bot o tobie przechowuje/);
    expect(await me('fr', h.discord.guild.otherMemberId)).toMatch(/^Ce que le bot garde sur toi/);
  });

  it('GIVEN an admin who set nothing THEN /settings language says German comes from Discord, in the admin’s English', async () => {
    expect(await language('en-US')).toBe(
      "Language of unfurls and feed posts: **Deutsch** (Discord's server language; /settings language)",
    );
  });

  it('GIVEN links posted THEN the unfurl reply is German, the server’s preferred locale', async () => {
    expect(await unfurlLine('plain')).toContain('…und 1 weiterer Link nicht angezeigt.');
  });

  it('GIVEN a Polish and a Russian member post /image publicly in the German server THEN each public card is in its asker’s language, and a link card there in German', async () => {
    const t = shippedTranslator();
    const credit = (message: RecordedMessage) =>
      z.array(z.object({ name: z.string() }).passthrough()).parse(message.embeds[0]?.['fields'] ?? [])[0]
        ?.name;
    for (const locale of ['pl', 'ru']) {
      const card = await h.discord
        .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain', locale })
        .finalReply();
      expect(card.flags & 64, locale).toBe(0);
      expect(credit(card), locale).toBe(t.t(locale, 'card.field.credit'));
    }
    const posted = await h.discord.sendMessage({
      channel: 'plain',
      content: `${h.booru.url}/images/${IDS.safe}`,
    });
    const reply = await h.discord.waitFor(() => posted.replies()[0]);
    expect(credit(reply)).toBe(t.t('de', 'card.field.credit'));
    expect(t.t('de', 'card.field.credit')).not.toBe(t.t('pl', 'card.field.credit'));
  });

  it('GIVEN the server’s locale changed to Spanish (GUILD_UPDATE) THEN the next unfurl reply is Spanish, and so are interactions’ guild locale', async () => {
    h.discord.updateGuild({ preferredLocale: 'es-ES' });
    // Interactions carry the new guild_locale; the GUILD_UPDATE sent before them is in the bot's cache by then.
    await eventually(async () => (await language('en-US')).includes('**Español**'));
    expect(await unfurlLine('plain')).toContain('…y 1 enlace más no se muestra.');
  });

  it('GIVEN a French admin sets Russian on a channel THEN the answer is French, the unfurl there Russian (and in its thread), elsewhere still Spanish', async () => {
    const plain = h.discord.guild.channels.plain;
    expect(await language('fr', { language: 'ru', channel: plain })).toBe(
      `Les fiches de liens et les publications des flux dans <#${plain}> seront désormais en **Русский**.`,
    );
    expect((await storedRecord(h, h.discord.guild.id)).channels?.[plain]).toEqual({ language: 'ru' });
    expect(await unfurlLine('plain')).toContain('…и ещё 1 ссылка не показана.');
    expect(await unfurlLine('threadInPlain')).toContain('…и ещё 1 ссылка не показана.');
    expect(await unfurlLine('spoiler')).toContain('…y 1 enlace más no se muestra.');
  });

  it('GIVEN the admin asks in Polish THEN the channel’s language and its source are said in Polish', async () => {
    const plain = h.discord.guild.channels.plain;
    expect(await language('pl', { channel: plain })).toBe(
      `Ustawienia na kanale <#${plain}>:\n• Język kart linków i postów z feedów: **Русский** (własne ustawienie tego kanału)`,
    );
  });
});

describe('/settings language for the server, in the admin’s language', () => {
  it('GIVEN a German admin sets French for the server THEN the answer is German and says the channel with its own keeps it; /settings show lists it', async () => {
    expect(await language('de', { language: 'fr' })).toBe(
      'Karten für Links und Feed-Beiträge auf diesem Server erscheinen ab jetzt auf **Français** (außer in Kanälen mit eigener Sprache).',
    );
    expect((await storedRecord(h, h.discord.guild.id)).language).toBe('fr');
    const show = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'show',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
        locale: 'de',
      })
      .finalReply();
    expect(show.content).toContain(
      'Sprache der Karten für Links und der Feed-Beiträge: **Français** (für diesen Server festgelegt; /settings language)',
    );
    expect(await unfurlLine('spoiler')).toContain('…et 1 autre lien non affiché.');
  });

  it('GIVEN the server and the channel cleared THEN the answers (Spanish, Russian) name the language that applies now', async () => {
    const plain = h.discord.guild.channels.plain;
    expect(await language('es-419', { language: 'discord', channel: plain })).toBe(
      `<#${plain}> ya no tiene idioma propio: las tarjetas de enlace y las publicaciones de los feeds allí siguen el del servidor, ahora **Français**.`,
    );
    expect(await language('ru', { language: 'discord' })).toBe(
      'Этот сервер больше не задаёт язык: карточки ссылок и публикации лент следуют языку сервера в Discord, сейчас это **Español**.',
    );
    expect(await storedRecord(h, h.discord.guild.id)).toEqual({ siteId: undefined, filters: {} });
    expect(await unfurlLine('plain')).toContain('…y 1 enlace más no se muestra.');
  });

  it('GIVEN a language set THEN /settings reset names it among what would go', async () => {
    await language('en-US', { language: 'pl' });
    const reset = await h.discord
      .sendCommand({
        name: 'settings',
        subcommand: 'reset',
        channel: 'plain',
        userId: h.discord.guild.ownerId,
        locale: 'en-US',
      })
      .finalReply();
    expect(reset.content).toContain('its language (Polski)');
  });
});
