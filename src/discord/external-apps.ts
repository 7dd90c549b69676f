/**
 * A server can turn off "Use External Apps" for its members: the answers of an app a member installed to
 * themselves (and that the server did not add) are then shown to that member alone, whatever the app asks.
 * The runtime sees it coming (the interaction says the app is not installed in the server, and the
 * member's permissions lack Use External Apps), answers privately from the start, and says why, instead
 * of offering public answers that would not be public.
 */
import {
  ComponentType,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  type Interaction,
  type Message,
} from 'discord.js';
import { sayIn, shippedTranslator, type Translator } from '../i18n/index.js';
import { MESSAGE_CONTENT_MAX, truncate, V2_TEXT_MAX } from '../render/index.js';
import type { Reply } from './contract.js';

/** The note's catalogue key (`runtime.private-here`), in the member's language. */
const NOTE_KEY = 'runtime.private-here';

/** The note in `locale`'s language (the member's: it answers what they asked). */
export function privateHereNote(locale: string | null | undefined, translator?: Translator): string {
  return sayIn(locale, translator)(NOTE_KEY);
}

/** The note in English (the tests of English answers compare with it). */
export const PRIVATE_HERE_NOTE = privateHereNote('en-US');

/**
 * The most the note may take in any language: a catalogue whose note is longer fails its test
 * (test/discord/private-note-locales.test.ts), since the answers below are sized without it.
 */
export const PRIVATE_NOTE_ROOM = 300;

/**
 * The text a Components V2 answer may use of Discord's 4,000: the runtime keeps the rest for the note it
 * puts above a forced-private answer (in any language), on its first page and every page after. Features
 * size their V2 bodies to this and need not know whether, or what, the runtime adds.
 */
export const V2_ANSWER_TEXT_MAX = V2_TEXT_MAX - PRIVATE_NOTE_ROOM - 1;

/** Whether Discord will show this interaction's answers to the member alone. */
export function answersForcedPrivate(interaction: Interaction): boolean {
  if (interaction.context !== InteractionContextType.Guild) return false;
  // Added to the server itself: the server's own rules for the bot apply, not "external apps".
  if (interaction.authorizingIntegrationOwners.guildId !== null) return false;
  return interaction.memberPermissions?.has(PermissionFlagsBits.UseExternalApps) === false;
}

/** `reply` with the note in front (in `locale`'s language), so the member knows why nobody else sees it. */
export function withPrivateNote(reply: Reply, locale: string | null | undefined): Reply {
  if (reply.kind !== 'message') return reply;
  const note = privateHereNote(locale);
  if (reply.body.componentsV2 === true) {
    // A V2 message has no content: the note is its first text display.
    const display = { type: ComponentType.TextDisplay, content: note } as const;
    return { kind: 'message', body: { ...reply.body, components: [display, ...reply.body.components] } };
  }
  const content = reply.body.content;
  const text = content === undefined || content === '' ? note : `${note}\n${content}`;
  return { kind: 'message', body: { ...reply.body, content: truncate(text, MESSAGE_CONTENT_MAX) } };
}

let notes: readonly string[] | undefined;

/** The note in every shipped language: a page may have been made while the member used another one. */
function everyNote(): readonly string[] {
  notes ??= shippedTranslator().locales.map((locale) => privateHereNote(locale));
  return notes;
}

/**
 * Whether `message` (a private answer being paged in place) shows the note: a new page keeps it. An embed
 * message keeps its content through an edit that sends none, but a Components V2 page replaces the whole
 * tree, note included.
 */
export function showsPrivateNote(message: Pick<Message, 'flags' | 'content' | 'components'>): boolean {
  if (!message.flags.has(MessageFlags.IsComponentsV2))
    return everyNote().some((note) => message.content.startsWith(note));
  const first = message.components[0];
  return first?.type === ComponentType.TextDisplay && everyNote().includes(first.content);
}
