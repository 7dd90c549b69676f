/**
 * The pseudo-locale the tests run every renderer in: English made longer (about 40%) and accented, so that
 * a label or a line that only fits in English, or text the bot forgot to put in the catalogue, shows up in
 * a test before a real translation meets it. Placeholders, plural and select structure, `#`, Markdown code
 * spans, mentions, links and `<...>` stay as they are: only words are stretched.
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { printAST } from '@formatjs/icu-messageformat-parser/printer.js';
import { ICU_OPTIONS, type Catalogue } from './catalogue.js';

/** The pseudo-locale's code: not a Discord locale, so no member ever gets it. */
export const PSEUDO_LOCALE = 'en-XA';

const ACCENTED: Readonly<Record<string, string>> = {
  a: 'á',
  b: 'ƀ',
  c: 'ç',
  d: 'đ',
  e: 'é',
  f: 'ƒ',
  g: 'ĝ',
  h: 'ĥ',
  i: 'í',
  j: 'ĵ',
  k: 'ķ',
  l: 'ĺ',
  m: 'ɱ',
  n: 'ñ',
  o: 'ó',
  p: 'þ',
  q: 'ǫ',
  r: 'ŕ',
  s: 'š',
  t: 'ţ',
  u: 'ú',
  v: 'ṽ',
  w: 'ŵ',
  x: 'ẋ',
  y: 'ý',
  z: 'ž',
  A: 'Á',
  B: 'Ɓ',
  C: 'Ç',
  D: 'Đ',
  E: 'É',
  F: 'Ƒ',
  G: 'Ĝ',
  H: 'Ĥ',
  I: 'Í',
  J: 'Ĵ',
  K: 'Ķ',
  L: 'Ĺ',
  M: 'Ṁ',
  N: 'Ñ',
  O: 'Ó',
  P: 'Þ',
  Q: 'Ǫ',
  R: 'Ŕ',
  S: 'Š',
  T: 'Ţ',
  U: 'Ú',
  V: 'Ṽ',
  W: 'Ŵ',
  X: 'Ẋ',
  Y: 'Ý',
  Z: 'Ž',
};

/** Code spans, mentions and links, `<...>`, and URLs: kept as written. */
const KEPT = /(`[^`]*`|<[^>\s]*>|https?:\/\/\S+|\/[a-z][\w-]*(?: [a-z][\w-]*)*)/g;

function stretch(text: string): string {
  const accented = text
    .split(KEPT)
    .map((part, index) => (index % 2 === 1 ? part : [...part].map((c) => ACCENTED[c] ?? c).join('')))
    .join('');
  if (!/[A-Za-z]/.test(text)) return accented;
  // Longer by about 40%: translations run longer than English (German by a third, Russian more). The
  // padding goes before the text's closing blanks and punctuation, so the message keeps its shape.
  const padding = '·'.repeat(Math.ceil(text.length * 0.4));
  return accented.replace(/([\s.,:;!?)]*)$/u, `${padding}$1`);
}

function transform(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    if (element.type === TYPE.literal) return { ...element, value: stretch(element.value) };
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(element.options).map(([key, option]) => [
          key,
          { ...option, value: transform(option.value) },
        ]),
      );
      return { ...element, options };
    }
    if (element.type === TYPE.tag) return { ...element, children: transform(element.children) };
    return element;
  });
}

/** `source` (English) as the pseudo-locale: every message stretched and accented, structure kept. */
export function pseudoCatalogue(source: Catalogue): Catalogue {
  return Object.fromEntries(
    Object.entries(source).map(([key, message]) => [key, printAST(transform(parse(message, ICU_OPTIONS)))]),
  );
}
