/**
 * The note above an answer Discord shows to one member alone (a server that turned off external apps,
 * src/discord/external-apps.ts) is in that member's language, fits the room every V2 answer leaves for it
 * in every shipped language and the pseudo-locale, and is recognised on a page made in any of them.
 */
import { ComponentType, MessageFlags, MessageFlagsBitField } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  PRIVATE_HERE_NOTE,
  PRIVATE_NOTE_ROOM,
  privateHereNote,
  showsPrivateNote,
  withPrivateNote,
} from '../../src/discord/external-apps.js';
import { PSEUDO_LOCALE, PSEUDO_MARK, translatorWithPseudo } from '../support/locales.js';

const translator = translatorWithPseudo();

describe('the forced-private note', () => {
  it('GIVEN every shipped language and the pseudo-locale THEN the note fits the room kept for it', () => {
    for (const locale of translator.locales) {
      const note = privateHereNote(locale, translator);
      expect(note.length, locale).toBeLessThanOrEqual(PRIVATE_NOTE_ROOM);
      if (locale !== 'en-US') expect(note, locale).not.toBe(PRIVATE_HERE_NOTE);
    }
    expect(privateHereNote(PSEUDO_LOCALE, translator)).toMatch(PSEUDO_MARK);
  });

  it('GIVEN a Polish member THEN the note on their answer is Polish, and es-419 gets the es-ES note', () => {
    const reply = withPrivateNote({ kind: 'message', body: { content: 'x' } }, 'pl');
    if (reply.kind !== 'message') throw new Error('not a message');
    expect(reply.body.content).toBe(`${privateHereNote('pl')}\nx`);
    expect(privateHereNote('es-419')).toBe(privateHereNote('es-ES'));
  });

  it('GIVEN a page made in German THEN it is seen to show the note, in either form', () => {
    const note = privateHereNote('de');
    const flags = (bits: number) => new MessageFlagsBitField(bits);
    expect(showsPrivateNote({ flags: flags(0), content: `${note}\nmore`, components: [] })).toBe(true);
    expect(showsPrivateNote({ flags: flags(0), content: 'Nur du', components: [] })).toBe(false);
    const display = { type: ComponentType.TextDisplay, content: note };
    expect(
      showsPrivateNote({
        flags: flags(MessageFlags.IsComponentsV2),
        content: '',
        components: [display as never],
      }),
    ).toBe(true);
  });
});
