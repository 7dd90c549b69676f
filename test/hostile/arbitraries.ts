/**
 * Generators of hostile text for the property suites: what members can type into options and chat, and
 * what a board can hold in its text fields. Mixed from fixed nasty pieces (mentions, query syntax, URL
 * syntax, Markdown, bidi marks, NUL, lone surrogates) and fast-check's arbitrary strings, so a shrunk
 * counterexample is a short readable mix.
 */
import fc from 'fast-check';

/** Pieces that have a meaning to Discord, to Philomena's query syntax, to URLs or to Markdown. */
export const NASTY_PIECES = [
  '@everyone',
  '@here',
  '@Everyone',
  '<@123>',
  '<@!123>',
  '<@&1>',
  '<#1>',
  '<\\@123>',
  '@\\everyone',
  '&key=stolen',
  '&filter_id=56027',
  '?key=x',
  '?',
  '#',
  '#frag',
  '&',
  '=',
  '../',
  '..\\',
  '/..',
  '%2F',
  '%2e%2e%2f',
  '%00',
  '%',
  '+',
  '"',
  "'",
  '\\',
  '\\"',
  '`',
  '```',
  '||',
  '**',
  '__',
  '~~',
  '*',
  '_',
  '>',
  '> ',
  '# ',
  '- ',
  '1. ',
  '[x](http://evil.test/)',
  '[https://derpibooru.org](http://evil.test/)',
  '<http://evil.test/a>',
  'http://evil.test/',
  'https://evil.test/',
  'javascript:alert(1)',
  'data:text/html,x',
  '![i](http://evil.test/p.png)',
  '>>1',
  '>>101t',
  '(',
  ')',
  ') OR (explicit',
  ' OR explicit',
  ' || ',
  ' AND ',
  ' && ',
  'NOT ',
  '-',
  '!',
  ',',
  '^2',
  '~0.5',
  '*',
  'explicit',
  'safe',
  'artist:',
  ':',
  '\u202e',
  '\u202d',
  '\u200f',
  '\u200e',
  '\u200b',
  '\ufeff',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\r\n',
  '\n',
  '\t',
  '\r',
  ' ',
  '\u00a0',
  '\u3000',
  '\ud83d\ude00',
  '\ud83d',
  '\ude00',
  '👨‍👩‍👧',
  'é',
  'İ',
  'ß',
  'ｆｕｌｌ',
  '．',
  '。',
] as const;

/** Well-formed UTF-16 (lone surrogates become U+FFFD), as any string that went through UTF-8 is. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Zalgo: a base letter buried under combining marks. */
export const zalgo: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('a', 'Z', 'é', '@', '<'),
    fc.array(fc.integer({ min: 0x300, max: 0x36f }), { minLength: 1, maxLength: 40 }),
  )
  .map(([base, marks]) => base + String.fromCharCode(...marks));

/** Control characters (C0, DEL, C1) one at a time. */
export const control: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((c) => String.fromCharCode(c));

const piece: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_PIECES) },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: zalgo },
  { weight: 1, arbitrary: control },
  { weight: 1, arbitrary: fc.nat().map(String) },
);

/** A hostile string of up to `maxPieces` pieces (default 12). */
export function hostileText(maxPieces = 12): fc.Arbitrary<string> {
  return fc.array(piece, { maxLength: maxPieces }).map((parts) => parts.join(''));
}

/** Hostile text, or sometimes a very long one (a piece repeated, or a long random string). */
export function hostileTextUpTo(maxLength: number): fc.Arbitrary<string> {
  const long = fc
    .tuple(hostileText(4), fc.integer({ min: 1, max: maxLength }))
    .map(([text, n]) => (text === '' ? 'x' : text).repeat(Math.ceil(n / Math.max(1, text.length))));
  return fc
    .oneof(
      { weight: 5, arbitrary: hostileText() },
      { weight: 1, arbitrary: long },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 3000) }) },
    )
    .map((text) => cutWithin(text, maxLength));
}

/** `text` within `max` UTF-16 units without ending on half a surrogate pair that was not there before. */
export function cutWithin(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) && /[\udc00-\udfff]/.test(text.charAt(max)) ? cut.slice(0, -1) : cut;
}

/**
 * Hosts that look like `host` but are not it, for the link recogniser: suffixes, prefixes, userinfo,
 * ports, fullwidth and ideographic dots, IDN look-alikes, lookalike letters, trailing dots, backslashes.
 */
export function lookAlikeAuthority(host: string): fc.Arbitrary<string> {
  const known = lookAlikes.get(host);
  if (known) return known;
  // Some variants leave a host unchanged (no `o` to swap in an IP address): never the host itself.
  const made = makeLookAlikes(host).filter((authority) => authority.toLowerCase() !== host.toLowerCase());
  lookAlikes.set(host, made);
  return made;
}

const lookAlikes = new Map<string, fc.Arbitrary<string>>();

function makeLookAlikes(host: string): fc.Arbitrary<string> {
  const label = fc
    .tuple(
      fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'), maxLength: 10 }),
    )
    .map(([first, rest]) => first + rest);
  const [name = host, ...restParts] = host.split('.');
  const rest = restParts.join('.');
  return fc.oneof(
    label.map((l) => `${host}.${l}.test`),
    label.map((l) => `${host}.${l}`),
    label.map((l) => `${l}-${host}`),
    label.map((l) => `${l}${host}`),
    label.map((l) => `${host}${l}`),
    label.map((l) => `${host}@${l}.test`),
    label.map((l) => `${host}:pw@${l}.test`),
    label.map((l) => `${l}.test?@${host}`),
    label.map((l) => `${l}.test#@${host}`),
    label.map((l) => `${l}.test\\@${host}`),
    label.map((l) => `${host}\\@${l}.test`),
    label.map((l) => `${host}%2F@${l}.test`),
    label.map((l) => `${host}%40${l}.test`),
    fc.constant(`${host}.`),
    fc.constant(`${host}..`),
    fc.constant(host.replaceAll('.', '。')),
    fc.constant(host.replaceAll('.', '．')),
    fc.constant(host.replaceAll('.', '%2E')),
    fc.constant(host.replace(/o/, '0')),
    fc.constant(host.replace(/o/, 'ο')), // Greek omicron
    fc.constant(host.replace(/a/, 'а')), // Cyrillic a
    fc.constant(`xn--${name}-abc${rest === '' ? '' : `.${rest}`}`),
    fc.constant(`${name}${rest === '' ? '' : `.${rest}`}:99999`),
    fc.integer({ min: 1, max: 65535 }).map((port) => `${host.split(':')[0] ?? host}:${port}1`),
    label.map((l) => `${l}.${host.split(':')[0] ?? host}.test`),
  );
}
