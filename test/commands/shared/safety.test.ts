import type { Channel } from 'discord.js';
import { ChannelType } from 'discord.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isAgeRestrictedChannel,
  mayShow,
  safeSearchQuery,
  type ChannelLike,
} from '../../../commands/shared/safety.js';
import { hiddenImageSchema } from '../../../src/philomena/schemas.js';
import { testImage } from '../../support/images.js';

// Compile-time: a discord.js channel fits the shape as it is.
const fromDiscordJs = (channel: Channel | null): boolean => isAgeRestrictedChannel(channel);

describe('isAgeRestrictedChannel', () => {
  const text = (nsfw: boolean): ChannelLike => ({ type: ChannelType.GuildText, nsfw });
  it.each<[string, ChannelLike | null | undefined, boolean]>([
    ['a plain text channel', text(false), false],
    ['an age-restricted text channel', text(true), true],
    ['an age-restricted voice channel', { type: ChannelType.GuildVoice, nsfw: true }, true],
    ['an age-restricted announcement channel', { type: ChannelType.GuildAnnouncement, nsfw: true }, true],
    ['an age-restricted stage channel', { type: ChannelType.GuildStageVoice, nsfw: true }, true],
    ['an age-restricted forum', { type: ChannelType.GuildForum, nsfw: true }, true],
    ['an age-restricted media channel', { type: ChannelType.GuildMedia, nsfw: true }, true],
    ['a plain forum', { type: ChannelType.GuildForum, nsfw: false }, false],
    ['a thread of an age-restricted channel', { type: ChannelType.PublicThread, parent: text(true) }, true],
    [
      'a private thread of an age-restricted channel',
      { type: ChannelType.PrivateThread, parent: text(true) },
      true,
    ],
    [
      'an announcement thread of one',
      { type: ChannelType.AnnouncementThread, parent: { type: 5, nsfw: true } },
      true,
    ],
    ['a thread of a plain channel', { type: ChannelType.PublicThread, parent: text(false) }, false],
    [
      'a thread claiming nsfw itself in a plain channel',
      { type: ChannelType.PublicThread, nsfw: true, parent: text(false) },
      false,
    ],
    ['a thread with an unknown parent', { type: ChannelType.PublicThread, parent: null }, false],
    [
      'a thread whose parent is a category',
      { type: ChannelType.PublicThread, parent: { type: ChannelType.GuildCategory, nsfw: true } },
      false,
    ],
    ['a DM', { type: ChannelType.DM, nsfw: true }, false],
    ['a group DM', { type: ChannelType.GroupDM, nsfw: true }, false],
    ['a category', { type: ChannelType.GuildCategory, nsfw: true }, false],
    ['an unknown channel type', { type: 999, nsfw: true }, false],
    ['nsfw not strictly true', { type: ChannelType.GuildText, nsfw: null }, false],
    ['null', null, false],
    ['undefined', undefined, false],
  ])('GIVEN %s THEN %s', (_name, channel, expected) => {
    expect(isAgeRestrictedChannel(channel)).toBe(expected);
  });

  it('GIVEN no channel from discord.js THEN false', () => {
    expect(fromDiscordJs(null)).toBe(false);
  });
});

describe('mayShow', () => {
  const visible = (tags: string[]) => testImage(tags);
  it.each<[string[], boolean, boolean]>([
    [['safe'], false, true],
    [['safe'], true, true],
    [['suggestive'], false, false],
    [['suggestive'], true, true],
    [['explicit'], false, false],
    [['grimdark'], false, false],
    [['safe', 'grimdark'], false, false],
    [['safe', 'explicit'], true, true],
    [[], false, false],
    [[], true, true],
    [['Safe '], false, true],
  ])('GIVEN tags %j, age-restricted %s THEN %s', (tags, ageRestricted, expected) => {
    expect(mayShow(visible(tags), ageRestricted)).toBe(expected);
  });

  it('GIVEN a deleted stub THEN never', () => {
    const stub = hiddenImageSchema.parse({ id: 1, hidden_from_users: true });
    expect(mayShow(stub, true)).toBe(false);
  });
});

/**
 * A model of the board's query lexer (Philomena's NimbleParsec lexer): grouping brackets, in-term
 * balanced brackets, quoted terms, backslash escapes, and the stop words that end a term. Returns the
 * character positions of grouping brackets, or null where the board would reject the query.
 */
function groupingBrackets(s: string): { index: number; open: boolean }[] | null {
  const stop = (j: number): boolean =>
    s[j] === ',' || /^(?:\s+(?:AND|&&|OR|\|\|)\s+|\s*\)|\s*\^[-+]?\d+(?:\.\d+)?)/.test(s.slice(j));
  const dirty = (from: number): number => {
    let j = from;
    while (j < s.length && !stop(j)) {
      if (s[j] === '\\' && j + 1 < s.length) j += 2;
      else if (s[j] === '(') {
        const inner = dirty(j + 1);
        if (inner === -1 || s[inner] !== ')') break;
        j = inner + 1;
      } else if (s[j] === ')') break;
      else j += 1;
    }
    return j > from ? j : -1;
  };
  const brackets: { index: number; open: boolean }[] = [];
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i);
    const op = /^(?:,|!|-|\s+(?:AND|&&|OR|\|\|)\s+|NOT\s+|\^[-+]?\d+(?:\.\d+)?|\s)/.exec(rest);
    if (op) {
      i += op[0].length;
      continue;
    }
    if (rest[0] === '(' || rest[0] === ')') {
      brackets.push({ index: i, open: rest[0] === '(' });
      i += 1;
      continue;
    }
    if (rest[0] === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' && j + 1 < s.length ? 2 : 1;
      if (j < s.length) {
        i = j + 1;
        continue;
      }
    }
    const end = dirty(i);
    if (end === -1) return null;
    i = end;
  }
  return brackets;
}

/** True when, as the board reads it, `safe` is ANDed with everything: our `(` closes at our `)`. */
function safeStaysOutside(wrapped: string): boolean {
  if (wrapped === 'safe') return true;
  if (!wrapped.startsWith('(') || !wrapped.endsWith('), safe')) return false;
  const brackets = groupingBrackets(wrapped);
  if (brackets === null) return true; // the board answers 400: nothing is shown
  let depth = 0;
  for (const bracket of brackets) {
    depth += bracket.open ? 1 : -1;
    if (depth < 0) return true; // unbalanced: 400
    if (depth === 0) return bracket.index === wrapped.length - ', safe'.length - 1;
  }
  return true; // never closed: 400
}

describe('safeSearchQuery', () => {
  it.each([
    ['pony', '(pony), safe'],
    ['  pony  ', '(pony), safe'],
    ['', 'safe'],
    ['   ', 'safe'],
    ['(fluttershy OR rarity), cute', '((fluttershy OR rarity), cute), safe'],
    ['fluttershy (g4)', '(fluttershy (g4)), safe'],
    ['artist:"foo bar"', '(artist:"foo bar"), safe'],
    ['explicit OR pony', '(explicit OR pony), safe'],
    ['pony) OR (explicit', '(pony\\) OR \\(explicit), safe'],
    ['a) OR explicit OR (b', '(a\\) OR explicit OR \\(b), safe'],
    ['"(" x) OR (y ")"', '(\\"\\(\\" x\\) OR \\(y \\"\\)\\"), safe'],
    ['a \\', '(a \\\\), safe'],
    ['(unclosed', '(\\(unclosed), safe'],
  ])('GIVEN %j outside age-restricted channels THEN %j', (query, expected) => {
    expect(safeSearchQuery(query, false)).toBe(expected);
    expect(safeStaysOutside(expected)).toBe(true);
  });

  it('GIVEN no second argument THEN it is the non-age-restricted form', () => {
    expect(safeSearchQuery('pony')).toBe('(pony), safe');
  });

  it.each([
    ['pony', 'pony'],
    ['explicit OR pony', 'explicit OR pony'],
    ['  x  ', 'x'],
  ])('GIVEN %j in an age-restricted channel THEN the query goes as typed', (query, expected) => {
    expect(safeSearchQuery(query, true)).toBe(expected);
  });

  it('GIVEN the lexer model THEN it sees the escape of a naive wrap', () => {
    // The model must be able to fail, or the property below proves nothing.
    expect(safeStaysOutside('(pony) OR (explicit), safe')).toBe(false);
    expect(safeStaysOutside('("(" x) OR (y ")"), safe')).toBe(false);
  });

  it('GIVEN any query THEN `safe` stays outside the user’s brackets as the board lexes it', () => {
    const piece = fc.constantFrom(
      '(',
      ')',
      '"',
      '\\',
      ' ',
      'a',
      'pony',
      ',',
      ' OR ',
      ' || ',
      ' AND ',
      ' && ',
      'NOT ',
      '-',
      '!',
      '^2',
      'explicit',
      '\\(',
      '\\)',
      '"a b"',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const wrapped = safeSearchQuery(pieces.join(''), false);
        return safeStaysOutside(wrapped);
      }),
      { numRuns: 5000 },
    );
  });
});
