/**
 * Why an imported settings file is refused, in the member's language: where (the field's path in the
 * file) and what was wrong there, built from the zod issue's path and code. Zod's own message is English
 * written for developers ("Invalid input: expected number, received string"); a member reads one of our
 * catalogue's `transfer.invalid.*` sentences instead, whatever the schema said.
 */
import type { z } from 'zod';
import { truncate } from '../../src/render/index.js';
import { CHANNEL_SETTINGS_MAX } from '../shared/guild-settings.js';
import type { Say } from '../shared/say.js';

type Issue = z.core.$ZodIssue;

/** The pattern of a Discord id in the file's schemas (transfer-file.ts, guild-settings.ts), as zod reports it. */
const SNOWFLAKE_PATTERN = String(/^\d{1,20}$/);

/** The types a member can be told a field should have; anything else is "another kind of value". */
const NAMED_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'int', 'boolean', 'object', 'array']);

/** A file's field path as a member reads it (`settings.channels.123.hiddenTags.4`), in code and short. */
function pathText(path: readonly PropertyKey[], say: Say): string {
  const text = path.map(String).join('.');
  return text === '' ? say('transfer.invalid.top-level') : `\`${truncate(text.replaceAll('`', "'"), 80)}\``;
}

/** The value at `path` in the parsed JSON, or undefined when a step of it is not there. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const step of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, step)) return undefined;
    node = Reflect.get(node, step);
  }
  return node;
}

const limit = (value: number | bigint): number => Number(value);

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>, say: Say): string {
  const min = limit(issue.minimum);
  switch (issue.origin) {
    case 'string':
      return min <= 1 ? say('transfer.invalid.empty') : say('transfer.invalid.too-short', { min });
    case 'array':
    case 'set':
      return say('transfer.invalid.too-few', { min });
    case 'number':
    case 'int':
    case 'bigint':
      return issue.inclusive === false
        ? say('transfer.invalid.number-above', { min })
        : say('transfer.invalid.number-min', { min });
    default:
      return say('transfer.invalid.other');
  }
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>, say: Say): string {
  const max = limit(issue.maximum);
  switch (issue.origin) {
    case 'string':
      return say('transfer.invalid.too-long', { max });
    case 'array':
    case 'set':
      // The one list whose limit is the server's, not the file format's (transfer-file.ts `feedsMax`).
      return issue.path.length === 1 && issue.path[0] === 'feeds'
        ? say('transfer.invalid.too-many-feeds', { max })
        : say('transfer.invalid.too-many', { max });
    case 'number':
    case 'int':
    case 'bigint':
      return say('transfer.invalid.number-max', { max });
    default:
      return say('transfer.invalid.other');
  }
}

function reason(issue: Issue, data: unknown, say: Say): string {
  switch (issue.code) {
    case 'invalid_type':
      if (valueAt(data, issue.path) === undefined) return say('transfer.invalid.missing');
      return say('transfer.invalid.type', {
        expected: NAMED_TYPES.has(issue.expected) ? issue.expected : 'other',
      });
    case 'too_small':
      return tooSmall(issue, say);
    case 'too_big':
      return tooBig(issue, say);
    case 'invalid_format':
      if (issue.format === 'datetime') return say('transfer.invalid.date');
      if (issue.format === 'regex' && issue.pattern === SNOWFLAKE_PATTERN) {
        return say('transfer.invalid.discord-id');
      }
      return say('transfer.invalid.form');
    case 'invalid_value':
      return say('transfer.invalid.value', {
        expected: issue.values.map((value) => `\`${String(value).replaceAll('`', "'")}\``).join(', '),
      });
    case 'invalid_key':
    case 'invalid_element': {
      // The key's (or element's) own issue says what is wrong with it; the path already names it.
      const inner = issue.issues[0];
      return inner === undefined ? say('transfer.invalid.other') : reason(inner, undefined, say);
    }
    case 'custom':
      // The one refinement of the file's schemas: guild-settings.ts bounds the channels with settings.
      return issue.path.at(-1) === 'channels'
        ? say('transfer.invalid.too-many-channels', { max: CHANNEL_SETTINGS_MAX })
        : say('transfer.invalid.other');
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case 'invalid_union':
      return say('transfer.invalid.other');
  }
}

/**
 * Where the file is wrong and what was wrong there, in `say`'s language: the params of the error
 * `settings.import.invalid` (`path` and `what`). `data` is the file's parsed JSON (to tell a missing field
 * from one of the wrong type).
 */
export function importProblem(
  issue: Issue | undefined,
  data: unknown,
  say: Say,
): { readonly path: string; readonly what: string } {
  if (issue === undefined) return { path: pathText([], say), what: say('transfer.invalid.other') };
  return { path: pathText(issue.path, say), what: reason(issue, data, say) };
}
