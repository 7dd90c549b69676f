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
  // URLs followed by closing brackets and punctuation, in every link form (trimming them was once quadratic).
  'https://a.bc/)))',
  'https://a.bc/...',
  'https://a.bc/]]]',
  'www.a.bc/)).',
  '"t":https://a.bc/))',
  '<https://a.bc/))>',
  '[t](https://a.bc/)))',
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
const zalgo: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('a', 'Z', 'é', '@', '<'),
    fc.array(fc.integer({ min: 0x300, max: 0x36f }), { minLength: 1, maxLength: 40 }),
  )
  .map(([base, marks]) => base + String.fromCharCode(...marks));

/** Control characters (C0, DEL, C1) one at a time. */
const control: fc.Arbitrary<string> = fc
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
function cutWithin(text: string, max: number): string {
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

/**
 * Shapes of board text that are worst cases for a Markdown parser, each made at any length `n`: runs of
 * closing brackets or punctuation after a URL in every link form the renderer knows (bare, `www.`,
 * Markdown, Textile, autolink), long runs of openers, unclosed markers of every kind, and line shapes
 * that make a backtracking regex retry. Descriptions on the board reach 50,000 characters; a shape that
 * costs more than linear time in its length stalls the bot for everyone.
 */
export const PATHOLOGICAL_SHAPES: readonly { readonly name: string; readonly make: (n: number) => string }[] =
  [
    { name: 'URL then )', make: (n) => fill('https://a.bc/', ')', n) },
    { name: 'www. then )', make: (n) => fill('www.a.bc/', ')', n) },
    { name: 'Textile link then )', make: (n) => fill('"text":https://a.bc/', ')', n) },
    { name: 'Markdown link then )', make: (n) => fill('[text](https://a.bc/', ')', n) },
    { name: 'autolink then )', make: (n) => `${fill('<https://a.bc/', ')', n - 1)}>` },
    { name: 'URL then .', make: (n) => fill('https://a.bc/', '.', n) },
    { name: 'URL then ]', make: (n) => fill('https://a.bc/', ']', n) },
    { name: 'URL then ).', make: (n) => fill('https://a.bc/', ').', n) },
    { name: 'URL in ( then )', make: (n) => `${'('.repeat(n / 4)}https://a.bc/${')'.repeat(n)}`.slice(0, n) },
    { name: 'URL then ( )', make: (n) => fill('https://a.bc/', '()', n) },
    { name: 'URLs each then )', make: (n) => fill('', 'https://a.bc/) ', n) },
    { name: 'URLs glued', make: (n) => fill('', 'https://', n) },
    { name: '[ run', make: (n) => '['.repeat(n) },
    { name: '( run', make: (n) => '('.repeat(n) },
    { name: '] run', make: (n) => ']'.repeat(n) },
    { name: '[a]( repeated', make: (n) => fill('', '[a](', n) },
    { name: '[a]( then ( run', make: (n) => fill('[a](', '(', n) },
    { name: '![ repeated', make: (n) => fill('', '![', n) },
    { name: '[[]] nested', make: (n) => `${'['.repeat(n / 2)}${']'.repeat(n / 2)}` },
    { name: '*a repeated', make: (n) => fill('', '*a', n) },
    { name: '** repeated', make: (n) => '*'.repeat(n) },
    { name: '_x repeated', make: (n) => fill('', '_x', n) },
    { name: '|| repeated', make: (n) => '|'.repeat(n) },
    { name: '~~a repeated', make: (n) => fill('', '~~a', n) },
    { name: 'nested emphasis', make: (n) => fill('', '**_~~||', n) },
    { name: 'emphasis then backtick run', make: (n) => fill('*a', '`', n) },
    { name: 'emphasis around backticks', make: (n) => `${fill('*a', ' `', n - 2)}a*` },
    { name: 'backtick runs shrinking', make: (n) => shrinkingRuns('`', n) },
    { name: 'backtick run', make: (n) => '`'.repeat(n) },
    { name: '[spoiler] repeated', make: (n) => fill('', '[spoiler]', n) },
    { name: '[== repeated', make: (n) => fill('', '[==', n) },
    { name: 'Textile "a": repeated', make: (n) => fill('', '"a":', n) },
    { name: 'Textile quotes', make: (n) => fill('', `"${'a'.repeat(290)}`, n) },
    { name: 'Textile !/ repeated', make: (n) => fill('', '!/', n) },
    { name: '< repeated', make: (n) => fill('', '<https://a', n) },
    { name: 'HTML tag opener run', make: (n) => fill('', '<a ', n) },
    { name: 'entities', make: (n) => fill('', '&#x1F600', n) },
    { name: '>>1 repeated', make: (n) => fill('', '>>1 ', n) },
    { name: 'backslash run', make: (n) => '\\'.repeat(n) },
    { name: 'heading then spaces', make: (n) => `${fill('# a', ' ', n - 1)}b` },
    { name: 'spaces then x', make: (n) => `${' '.repeat(n - 1)}x` },
    { name: 'table rule shapes', make: (n) => fill(' ', '|---', n) },
    { name: 'rule then x', make: (n) => `${fill('', '- ', n - 1)}x` },
    { name: 'quotes nested', make: (n) => fill('', '> ', n) },
    { name: 'lines of URL then )', make: (n) => fill('', 'https://a.bc/)))))\n', n) },
    { name: 'http:// run', make: (n) => fill('', 'http://', n) },
    // CommonMark constructs the parser reads and the board text may hold: nested image alt texts,
    // reference labels, link titles, HTML comments, empty links.
    { name: 'images nested', make: (n) => nested('![', 'a', '](x)', n) },
    { name: 'reference labels', make: (n) => fill('', '[a][', n) },
    { name: 'link titles', make: (n) => fill('', '[a](b "', n) },
    { name: 'HTML comment openers', make: (n) => fill('', '<!--', n) },
    { name: '[]( repeated', make: (n) => fill('', '[](', n) },
  ];

/** `open` k times, `middle`, `close` k times: about `n` characters. */
function nested(open: string, middle: string, close: string, n: number): string {
  const k = Math.floor((n - middle.length) / (open.length + close.length));
  return `${open.repeat(k)}${middle}${close.repeat(k)}`;
}

/** `head` then `unit` repeated, exactly `n` characters. */
function fill(head: string, unit: string, n: number): string {
  return (head + unit.repeat(Math.ceil(Math.max(0, n - head.length) / unit.length))).slice(0, n);
}

/** Runs of `c` of decreasing length (each without a closer of its own length after it), `n` characters. */
function shrinkingRuns(c: string, n: number): string {
  let text = '';
  for (let run = Math.floor(Math.sqrt(2 * n)); run > 0 && text.length < n; run -= 1)
    text += `${c.repeat(run)} `;
  return text.padEnd(n, 'a').slice(0, n);
}

/** A pathological shape at a length up to `maxLength`, sometimes inside ordinary hostile text. */
export function pathologicalText(maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...PATHOLOGICAL_SHAPES),
      fc.integer({ min: 1, max: maxLength }),
      hostileText(3),
      hostileText(3),
    )
    .map(([shape, n, before, after]) => cutWithin(`${before}${shape.make(n)}${after}`, maxLength));
}
