/**
 * Discord's permissions named as its client names them, in every shipped language
 * (commands/shared/permission-names.ts): `/feed`'s refusals and `/settings show`'s permission report
 * (commands/settings/permissions.ts, whose lines begin with the permission's name) use the same words.
 */
import { describe, expect, it } from 'vitest';
import { permissionBit, permissionList } from '../../../commands/shared/permission-names.js';
import { PermissionFlagsBits } from 'discord.js';
import { shippedSays } from '../../support/locales.js';

/** The names issue 21 gives, as Discord's client shows them (channel permissions). */
const EXPECTED: Readonly<Record<string, readonly [string, string, string, string]>> = {
  'en-US': ['View Channel', 'Send Messages', 'Embed Links', 'Attach Files'],
  de: ['Kanal ansehen', 'Nachrichten senden', 'Links einbetten', 'Dateien anhängen'],
  fr: ['Voir le salon', 'Envoyer des messages', 'Intégrer des liens', 'Joindre des fichiers'],
  'es-ES': ['Ver canal', 'Enviar mensajes', 'Insertar enlaces', 'Adjuntar archivos'],
  'pt-BR': ['Ver canal', 'Enviar mensagens', 'Inserir links', 'Anexar arquivos'],
  pl: ['Wyświetlanie kanału', 'Wysyłanie wiadomości', 'Osadzanie linków', 'Załączanie plików'],
  ru: ['Просматривать канал', 'Отправлять сообщения', 'Встраивать ссылки', 'Прикреплять файлы'],
};

/** The permissions of `/settings show`'s report (commands/settings/permissions.ts `NEEDS`). */
const REPORTED = ['view-channel', 'send-messages', 'embed-links', 'read-message-history', 'manage-messages'];

describe('permission names', () => {
  it('GIVEN every shipped language THEN the names are Discord client names of that language', () => {
    for (const { locale, say } of shippedSays()) {
      const expected = EXPECTED[locale];
      expect(expected, locale).toBeDefined();
      const names = [
        'permission.view-channel',
        'permission.send-messages',
        'permission.embed-links',
        'permission.attach-files',
      ];
      expect(
        names.map((key) => say(key)),
        locale,
      ).toEqual(expected);
    }
  });

  it('GIVEN English THEN a list reads as before, unquoted and comma-separated', () => {
    const [english] = shippedSays();
    if (english === undefined) throw new Error('no English');
    expect(permissionList(['ViewChannel', 'SendMessagesInThreads'], english.say)).toBe(
      'View Channel, Send Messages in Threads',
    );
  });

  it("GIVEN Polish and German THEN each name in a list is in that language's quotation marks", () => {
    const says = new Map(shippedSays().map(({ locale, say }) => [locale, say]));
    const [pl, de] = [says.get('pl'), says.get('de')];
    if (pl === undefined || de === undefined) throw new Error('pl and de ship');
    expect(permissionList(['SendMessages', 'EmbedLinks'], pl)).toBe(
      '„Wysyłanie wiadomości”, „Osadzanie linków”',
    );
    expect(permissionList(['ViewChannel'], de)).toBe('„Kanal ansehen“');
  });

  it("GIVEN a named permission THEN its bit is Discord's", () => {
    expect(permissionBit('EmbedLinks')).toBe(PermissionFlagsBits.EmbedLinks);
    expect(permissionBit('ManageGuild')).toBe(PermissionFlagsBits.ManageGuild);
  });

  it("GIVEN /settings show's permission report THEN each line begins with the name the refusals use, in every language", () => {
    for (const { locale, say } of shippedSays()) {
      for (const id of REPORTED) {
        expect(say(`settings.permissions.need.${id}`), `${locale} ${id}`).toMatch(
          new RegExp(`^${say(`permission.${id}`)} \\(`),
        );
      }
    }
  });
});
