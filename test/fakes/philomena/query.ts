/**
 * A small parser and evaluator for Philomena's search syntax, enough to answer the queries users and the
 * bot actually send: AND (`,` ` AND ` `&&`), OR (` OR ` `||`), NOT (`NOT `, `-`, `!`), parentheses,
 * `"quoted \"escaped\""` terms, `*`/`?` wildcards, `field:value` and `field.gte:value` ranges. Boosts
 * (`^2`) and fuzziness (`~0.8`) are accepted and ignored: the fake has no relevance ranking.
 *
 * The evaluator is generic: each searchable kind (images, tags, comments, ...) describes its fields in a
 * `SearchSchema`, so one parser serves every search endpoint.
 */

import type { AccountLists } from './accounts.js';

export class QueryError extends Error {
  override readonly name = 'QueryError';
}

export type QueryNode =
  | { readonly kind: 'and'; readonly children: readonly QueryNode[] }
  | { readonly kind: 'or'; readonly children: readonly QueryNode[] }
  | { readonly kind: 'not'; readonly child: QueryNode }
  | { readonly kind: 'term'; readonly text: string; readonly quoted: boolean };

type Token =
  | { readonly type: 'lparen' | 'rparen' | 'and' | 'or' | 'not' }
  | { readonly type: 'term'; readonly text: string; readonly quoted: boolean };

const IMBALANCED = 'Imbalanced parentheses.';

/** Reads `\x` escapes: `\*` and `\?` stay escaped (they are literal wildcards), anything else becomes x. */
function unescapeChar(next: string): string {
  return next === '*' || next === '?' ? `\\${next}` : next;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const atTermStart = (): boolean => {
    const last = tokens[tokens.length - 1];
    // After a term or a closing parenthesis an operator is due, not a term: `(a) OR (b)`.
    return last === undefined || (last.type !== 'term' && last.type !== 'rparen');
  };
  while (i < input.length) {
    const ch = input[i] as string;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    const rest = input.slice(i);
    if (ch === '(') {
      tokens.push({ type: 'lparen' });
      i += 1;
      continue;
    }
    if (ch === ')') {
      tokens.push({ type: 'rparen' });
      i += 1;
      continue;
    }
    if (ch === ',') {
      tokens.push({ type: 'and' });
      i += 1;
      continue;
    }
    if (rest.startsWith('&&')) {
      tokens.push({ type: 'and' });
      i += 2;
      continue;
    }
    if (rest.startsWith('||')) {
      tokens.push({ type: 'or' });
      i += 2;
      continue;
    }
    const keyword = /^(AND|OR|NOT)(?=\s|\()/.exec(rest);
    if (keyword) {
      const word = keyword[1];
      // `AND`/`OR` only between terms, `NOT` only where a term may start; elsewhere they are words.
      if ((word === 'NOT' && atTermStart()) || (word !== 'NOT' && !atTermStart())) {
        tokens.push({ type: word === 'AND' ? 'and' : word === 'OR' ? 'or' : 'not' });
        i += word?.length ?? 0;
        continue;
      }
    }
    if (
      (ch === '-' || ch === '!') &&
      atTermStart() &&
      i + 1 < input.length &&
      !/\s/.test(input[i + 1] ?? ' ')
    ) {
      tokens.push({ type: 'not' });
      i += 1;
      continue;
    }
    if (ch === '"') {
      let text = '';
      let j = i + 1;
      let closed = false;
      while (j < input.length) {
        const c = input[j] as string;
        if (c === '\\' && j + 1 < input.length) {
          text += unescapeChar(input[j + 1] as string);
          j += 2;
          continue;
        }
        if (c === '"') {
          closed = true;
          j += 1;
          break;
        }
        text += c;
        j += 1;
      }
      if (!closed) throw new QueryError('Unterminated quoted term.');
      // A boost or fuzz right after the closing quote belongs to the term.
      const suffix = /^(?:\^[\d.]+|~[\d.]+)+/.exec(input.slice(j));
      if (suffix) j += suffix[0].length;
      tokens.push({ type: 'term', text, quoted: true });
      i = j;
      continue;
    }
    // A bare term runs until an operator or an unmatched closing parenthesis.
    let text = '';
    let depth = 0;
    let j = i;
    while (j < input.length) {
      const c = input[j] as string;
      const tail = input.slice(j);
      if (c === '\\' && j + 1 < input.length) {
        text += unescapeChar(input[j + 1] as string);
        j += 2;
        continue;
      }
      if (c === ',' || tail.startsWith('&&') || tail.startsWith('||')) break;
      if (/^\s+(?:AND|OR)(?:\s|\(|$)/.test(tail) || /^\s+(?:&&|\|\|)/.test(tail)) break;
      if (c === '(') depth += 1;
      if (c === ')') {
        if (depth === 0) break;
        depth -= 1;
      }
      text += c;
      j += 1;
    }
    i = j;
    const trimmed = text.trim().replace(/(?:\^[\d.]+|~[\d.]+)+$/, '');
    if (trimmed !== '') tokens.push({ type: 'term', text: trimmed, quoted: false });
  }
  return tokens;
}

/** Parses a query; throws `QueryError` (the server's 400 message) on a syntax error. */
export function parseQuery(input: string): QueryNode {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];

  function parseOr(): QueryNode {
    const children = [parseAnd()];
    while (peek()?.type === 'or') {
      pos += 1;
      children.push(parseAnd());
    }
    return children.length === 1 ? (children[0] as QueryNode) : { kind: 'or', children };
  }
  function parseAnd(): QueryNode {
    const children = [parseNot()];
    while (peek()?.type === 'and') {
      pos += 1;
      children.push(parseNot());
    }
    return children.length === 1 ? (children[0] as QueryNode) : { kind: 'and', children };
  }
  function parseNot(): QueryNode {
    if (peek()?.type === 'not') {
      pos += 1;
      return { kind: 'not', child: parseNot() };
    }
    return parsePrimary();
  }
  function parsePrimary(): QueryNode {
    const token = peek();
    if (token === undefined) throw new QueryError('Expected a term.');
    if (token.type === 'lparen') {
      pos += 1;
      const inner = parseOr();
      if (peek()?.type !== 'rparen') throw new QueryError(IMBALANCED);
      pos += 1;
      return inner;
    }
    if (token.type === 'term') {
      pos += 1;
      return { kind: 'term', text: token.text, quoted: token.quoted };
    }
    if (token.type === 'rparen') throw new QueryError(IMBALANCED);
    throw new QueryError('Expected a term.');
  }

  const tree = parseOr();
  if (pos < tokens.length) {
    throw new QueryError(peek()?.type === 'rparen' ? IMBALANCED : 'Expected a term.');
  }
  return tree;
}

// ---------------------------------------------------------------------------------------------------
// Evaluation

export type FieldType = 'literal' | 'text' | 'int' | 'float' | 'date' | 'bool';
export type FieldValue = string | number | boolean | null;

export interface QueryContext {
  /** The key's account, for `my:` queries; undefined when anonymous. */
  readonly user?: AccountLists | undefined;
  /** Anonymous `my:` is a literal tag on Derpibooru and a 400 upstream. */
  readonly style: 'derpibooru' | 'upstream';
  readonly now: number;
}

export interface SearchSchema<T> {
  /** The field a bare term searches. */
  readonly defaultField: string;
  readonly fields: Readonly<Record<string, FieldType>>;
  /** Values of one field of one document; an empty list never matches (except under NOT). */
  values(doc: T, field: string, ctx: QueryContext): readonly FieldValue[];
  /** `my:faves` and friends (undefined: a value the board refuses); absent when the kind has no `my:`. */
  my?(what: string, user: AccountLists): Predicate<T> | undefined;
}

export type Predicate<T> = (doc: T) => boolean;

function wildcardRegExp(pattern: string, anchored: boolean): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) {
      source += (pattern[i + 1] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    } else if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(anchored ? `^${source}$` : source, 'is');
}

const DATE_UNITS: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
  year: 31_536_000_000,
};

/** An RFC 3339 fragment (`2019`, `2019-05`, `2019-05-02T05:33`) or `N units ago` → [start, end). */
function parseDateRange(value: string, now: number): [number, number] {
  const relative = /^(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago$/i.exec(value.trim());
  if (relative) {
    const unit = DATE_UNITS[(relative[2] as string).toLowerCase()] as number;
    const point = now - Number(relative[1]) * unit;
    return [point, point + unit];
  }
  const m =
    /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(
      value.trim(),
    );
  if (!m) throw new QueryError(`Expected a date, got "${value}".`);
  const parts = m.slice(1, 7).map((p) => (p === undefined ? undefined : Number(p)));
  const [year, month, day, hour, minute, second] = parts;
  let offset = 0;
  const zone = m[7];
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /([+-])(\d{2}):?(\d{2})/.exec(zone);
    if (z) offset = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
  }
  const start =
    Date.UTC(year as number, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second ?? 0) - offset;
  let end: number;
  if (second !== undefined) end = start + 1_000;
  else if (minute !== undefined) end = start + 60_000;
  else if (hour !== undefined) end = start + 3_600_000;
  else if (day !== undefined) end = start + 86_400_000;
  else if (month !== undefined) end = Date.UTC(year as number, month, 1) - offset;
  else end = Date.UTC((year as number) + 1, 0, 1) - offset;
  return [start, end];
}

type Op = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

function compileTerm<T>(
  node: { text: string; quoted: boolean },
  schema: SearchSchema<T>,
  ctx: QueryContext,
): Predicate<T> {
  const fieldMatch = /^([a-z_]+)(?:\.(gt|gte|lt|lte))?:(.*)$/is.exec(node.text);
  let field = schema.defaultField;
  let op: Op = 'eq';
  let value = node.text;
  if (fieldMatch) {
    const name = (fieldMatch[1] as string).toLowerCase();
    if (name === 'my' && schema.my) {
      const what = (fieldMatch[3] as string).trim().toLowerCase();
      // images/query.ex: `my` is a field for signed-in users (anonymous ones too upstream, refused).
      if (ctx.user !== undefined) {
        const test = schema.my(what, ctx.user);
        if (test === undefined) throw new QueryError("Unknown `my' value.");
        return test;
      }
      if (ctx.style === 'upstream') throw new QueryError("You must be logged in to use `my' queries.");
      // Derpibooru: anonymous `my:faves` is just a tag name.
    } else if (schema.fields[name] !== undefined) {
      field = name;
      op = (fieldMatch[2]?.toLowerCase() as Op | undefined) ?? 'eq';
      value = (fieldMatch[3] as string).trim();
    }
  }
  const type = schema.fields[field] ?? 'literal';
  const values = (doc: T): readonly FieldValue[] => schema.values(doc, field, ctx);

  switch (type) {
    case 'literal': {
      if (value === '*') return (doc) => values(doc).length > 0;
      const re = wildcardRegExp(value.trim(), true);
      return (doc) => values(doc).some((v) => typeof v === 'string' && re.test(v));
    }
    case 'text': {
      const words = value
        .trim()
        .split(/\s+/)
        .filter((w) => w !== '')
        .map((w) => wildcardRegExp(w, true));
      return (doc) =>
        values(doc).some((v) => {
          if (typeof v !== 'string') return false;
          const docWords = v.toLowerCase().split(/[^\p{L}\p{N}*?_@#:'-]+/u);
          return words.every((re) => docWords.some((w) => re.test(w)));
        });
    }
    case 'int':
    case 'float': {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || (type === 'int' && !Number.isInteger(n))) {
        throw new QueryError(`Expected ${type === 'int' ? 'an integer' : 'a number'}, got "${value}".`);
      }
      const test = (v: number): boolean =>
        op === 'eq' ? v === n : op === 'gt' ? v > n : op === 'gte' ? v >= n : op === 'lt' ? v < n : v <= n;
      return (doc) => values(doc).some((v) => typeof v === 'number' && test(v));
    }
    case 'date': {
      const [start, end] = parseDateRange(value, ctx.now);
      const test = (t: number): boolean =>
        op === 'eq'
          ? t >= start && t < end
          : op === 'gt'
            ? t >= end
            : op === 'gte'
              ? t >= start
              : op === 'lt'
                ? t < start
                : t < end;
      return (doc) =>
        values(doc).some((v) => {
          if (typeof v !== 'string') return false;
          const t = Date.parse(/(?:Z|[+-]\d\d:?\d\d)$/i.test(v) ? v : `${v}Z`);
          return !Number.isNaN(t) && test(t);
        });
    }
    case 'bool': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw new QueryError(`Expected a boolean, got "${value}".`);
      const wanted = lower === 'true';
      return (doc) => values(doc).some((v) => v === wanted);
    }
  }
}

/** Compiles a parsed query against a schema; field value errors throw `QueryError`. */
function compileQuery<T>(node: QueryNode, schema: SearchSchema<T>, ctx: QueryContext): Predicate<T> {
  switch (node.kind) {
    case 'and': {
      const parts = node.children.map((c) => compileQuery(c, schema, ctx));
      return (doc) => parts.every((p) => p(doc));
    }
    case 'or': {
      const parts = node.children.map((c) => compileQuery(c, schema, ctx));
      return (doc) => parts.some((p) => p(doc));
    }
    case 'not': {
      const inner = compileQuery(node.child, schema, ctx);
      return (doc) => !inner(doc);
    }
    case 'term':
      return compileTerm(node, schema, ctx);
  }
}

/** Parse and compile in one step. */
export function queryPredicate<T>(input: string, schema: SearchSchema<T>, ctx: QueryContext): Predicate<T> {
  return compileQuery(parseQuery(input), schema, ctx);
}
