/**
 * What real Discord would reject in a request body: first Discord's own OpenAPI description (compiled
 * with Ajv), then the documented limits the description leaves out or states more loosely (see
 * ../shared/discord/README.md). Each problem is one `Issue` with the body path it concerns, so the
 * REST layer can answer with Discord's `50035 Invalid Form Body` error shape.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DISCORD_OPENAPI_FILE } from '../../support/shared.js';

const OPENAPI_PATH = DISCORD_OPENAPI_FILE;
const DOC_ID = 'discord-openapi';

export interface Issue {
  /** Path inside the body, e.g. `['embeds', 0, 'title']`. */
  readonly path: readonly (string | number)[];
  /** Discord-style error code, e.g. `BASE_TYPE_MAX_LENGTH`. */
  readonly code: string;
  readonly message: string;
}

/** The schema names this fake checks against (components.schemas of the OpenAPI document). */
export type SchemaName =
  | 'CreateMessageInteractionCallbackRequest'
  | 'UpdateMessageInteractionCallbackRequest'
  | 'ApplicationCommandAutocompleteCallbackRequest'
  | 'ModalInteractionCallbackRequest'
  | 'IncomingWebhookRequestPartial'
  | 'IncomingWebhookUpdateRequestPartial'
  | 'MessageCreateRequest'
  | 'MessageEditRequestPartial'
  | 'ApplicationCommandCreateRequest'
  | 'ApplicationCommandUpdateRequest';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS with a default export; under NodeNext the default may arrive wrapped.
const addFormats: AddFormats =
  typeof addFormatsModule === 'function'
    ? (addFormatsModule as unknown as AddFormats)
    : (addFormatsModule as unknown as { default: AddFormats }).default;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('snowflake', { type: 'string', validate: (s: string) => /^(0|[1-9][0-9]*)$/.test(s) });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('nonce', true);
  const doc: unknown = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
  ajv.addSchema(doc as object, DOC_ID);
  return ajv;
}

/** One compiled validator set per process: compiling the document costs a few hundred ms. */
let shared: { ajv: Ajv2020; compiled: Map<SchemaName, ValidateFunction> } | undefined;

function validatorFor(name: SchemaName): ValidateFunction {
  shared ??= { ajv: createAjv(), compiled: new Map() };
  let fn = shared.compiled.get(name);
  if (fn === undefined) {
    fn = shared.ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
    if (fn === undefined) throw new Error(`fake Discord: schema ${name} is not in the OpenAPI document`);
    shared.compiled.set(name, fn);
  }
  return fn;
}

function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

function ajvIssue(error: ErrorObject): Issue {
  const path = pointerToPath(error.instancePath);
  switch (error.keyword) {
    case 'maxLength':
    case 'maxItems':
      return {
        path,
        code: 'BASE_TYPE_MAX_LENGTH',
        message: `Must be ${String(error.params['limit'])} or fewer in length.`,
      };
    case 'minLength':
    case 'minItems':
      return {
        path,
        code: 'BASE_TYPE_MIN_LENGTH',
        message: `Must be ${String(error.params['limit'])} or more in length.`,
      };
    case 'required':
      return {
        path: [...path, String(error.params['missingProperty'])],
        code: 'BASE_TYPE_REQUIRED',
        message: 'This field is required',
      };
    case 'format':
      return {
        path,
        code: 'BASE_TYPE_BAD_FORMAT',
        message: `Not a well formed ${String(error.params['format'])}.`,
      };
    default:
      return { path, code: `SCHEMA_${error.keyword.toUpperCase()}`, message: error.message ?? error.keyword };
  }
}

/**
 * Ajv reports every failed branch of a oneOf/anyOf; keep the errors that say what is actually wrong (a too
 * long title, not "must match a schema in oneOf" or "must be null"): drop combinator and null-branch
 * errors, and drop an error when a deeper one exists under the same path.
 */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject[] {
  const meaningful = errors.filter(
    (e) =>
      !['oneOf', 'anyOf', 'allOf', 'if', 'not'].includes(e.keyword) &&
      !(e.keyword === 'type' && e.params['type'] === 'null'),
  );
  const pool = meaningful.length > 0 ? meaningful : [...errors];
  const kept = pool.filter((e) => !pool.some((other) => other.instancePath.startsWith(`${e.instancePath}/`)));
  const seen = new Set<string>();
  return kept.filter((e) => {
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Where Discord's documentation and the OpenAPI description disagree, the documentation wins (see the
 * README): `default_member_permissions` is documented as a string bit set (what discord.js sends) while
 * the description types it as an integer. Discord accepts both, so a digit string is checked as the
 * integer it stands for.
 */
function documentedForm(name: SchemaName, body: unknown): unknown {
  if (name !== 'ApplicationCommandCreateRequest' && name !== 'ApplicationCommandUpdateRequest') return body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const permissions = (body as Record<string, unknown>)['default_member_permissions'];
  if (typeof permissions !== 'string' || !/^\d+$/.test(permissions)) return body;
  return { ...body, default_member_permissions: Number(permissions) };
}

export function schemaIssues(name: SchemaName, body: unknown): Issue[] {
  const fn = validatorFor(name);
  if (fn(documentedForm(name, body))) return [];
  return mostSpecific(fn.errors ?? []).map(ajvIssue);
}

/** Warm the validator cache (compiling takes a moment; do it before the 3-second clocks start). */
export function precompile(names: readonly SchemaName[]): void {
  for (const name of names) validatorFor(name);
}

// ---------------------------------------------------------------------------------------------------
// Documented limits, checked by hand.

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const textLength = (value: unknown): number => (typeof value === 'string' ? [...value].length : 0);

const HTTP_URL = /^https?:\/\//i;
const MEDIA_URL = /^(?:https?:\/\/|attachment:\/\/)/i;

function maxLength(issues: Issue[], path: (string | number)[], value: unknown, limit: number): void {
  if (typeof value === 'string' && [...value].length > limit) {
    issues.push({ path, code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${limit} or fewer in length.` });
  }
}

function urlScheme(
  issues: Issue[],
  path: (string | number)[],
  value: unknown,
  pattern: RegExp,
  what: string,
): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !pattern.test(value)) {
    issues.push({
      path,
      code: 'URL_TYPE_INVALID_SCHEME',
      message: `Scheme "${typeof value === 'string' ? (value.split(':')[0] ?? '') : ''}" is not supported. Scheme must be one of (${what}).`,
    });
  }
}

function embedIssues(embeds: unknown, issues: Issue[]): void {
  const list = arrayOf(embeds);
  if (list.length > 10) {
    issues.push({
      path: ['embeds'],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: 'Must be 10 or fewer in length.',
    });
  }
  let total = 0;
  list.forEach((embed, i) => {
    if (!isRecord(embed)) return;
    const at = (...rest: (string | number)[]): (string | number)[] => ['embeds', i, ...rest];
    maxLength(issues, at('title'), embed['title'], 256);
    maxLength(issues, at('description'), embed['description'], 4096);
    total += textLength(embed['title']) + textLength(embed['description']);
    urlScheme(issues, at('url'), embed['url'], HTTP_URL, 'http, https');
    const fields = arrayOf(embed['fields']);
    if (fields.length > 25) {
      issues.push({
        path: at('fields'),
        code: 'BASE_TYPE_MAX_LENGTH',
        message: 'Must be 25 or fewer in length.',
      });
    }
    fields.forEach((field, j) => {
      if (!isRecord(field)) return;
      maxLength(issues, at('fields', j, 'name'), field['name'], 256);
      maxLength(issues, at('fields', j, 'value'), field['value'], 1024);
      for (const key of ['name', 'value'] as const) {
        if (typeof field[key] !== 'string' || field[key] === '') {
          issues.push({
            path: at('fields', j, key),
            code: 'BASE_TYPE_REQUIRED',
            message: 'This field is required',
          });
        }
      }
      total += textLength(field['name']) + textLength(field['value']);
    });
    const footer = embed['footer'];
    if (isRecord(footer)) {
      maxLength(issues, at('footer', 'text'), footer['text'], 2048);
      urlScheme(issues, at('footer', 'icon_url'), footer['icon_url'], MEDIA_URL, 'http, https, attachment');
      total += textLength(footer['text']);
    }
    const author = embed['author'];
    if (isRecord(author)) {
      maxLength(issues, at('author', 'name'), author['name'], 256);
      urlScheme(issues, at('author', 'url'), author['url'], HTTP_URL, 'http, https');
      urlScheme(issues, at('author', 'icon_url'), author['icon_url'], MEDIA_URL, 'http, https, attachment');
      total += textLength(author['name']);
    }
    for (const media of ['image', 'thumbnail'] as const) {
      const value = embed[media];
      if (isRecord(value)) {
        urlScheme(issues, at(media, 'url'), value['url'], MEDIA_URL, 'http, https, attachment');
      }
    }
  });
  if (total > 6000) {
    issues.push({
      path: ['embeds'],
      code: 'MAX_EMBED_SIZE_EXCEEDED',
      message: `Embed size exceeds maximum size of 6000 (${total})`,
    });
  }
}

function componentIssues(components: unknown, issues: Issue[]): void {
  const rows = arrayOf(components);
  const customIds = new Set<string>();
  const actionRows = rows.filter((row) => isRecord(row) && row['type'] === 1);
  if (actionRows.length > 5) {
    issues.push({
      path: ['components'],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: 'Must be 5 or fewer in length.',
    });
  }
  rows.forEach((row, i) => {
    if (!isRecord(row) || row['type'] !== 1) return;
    const children = arrayOf(row['components']);
    if (children.length > 5) {
      issues.push({
        path: ['components', i, 'components'],
        code: 'BASE_TYPE_MAX_LENGTH',
        message: 'Must be 5 or fewer in length.',
      });
    }
    if (children.length === 0) {
      issues.push({
        path: ['components', i, 'components'],
        code: 'BASE_TYPE_MIN_LENGTH',
        message: 'Must be 1 or more in length.',
      });
    }
    children.forEach((child, j) => {
      if (!isRecord(child)) return;
      const at = (...rest: (string | number)[]): (string | number)[] => [
        'components',
        i,
        'components',
        j,
        ...rest,
      ];
      if (child['type'] === 2) {
        maxLength(issues, at('label'), child['label'], 80);
        const isLink = child['style'] === 5;
        const isPremium = child['style'] === 6;
        if (isLink) {
          urlScheme(issues, at('url'), child['url'], /^(?:https?|discord):\/\//i, 'http, https, discord');
          if (child['custom_id'] !== undefined) {
            issues.push({
              path: at('custom_id'),
              code: 'COMPONENT_CUSTOM_ID_NOT_ALLOWED',
              message: 'Link buttons cannot have a custom_id',
            });
          }
          return;
        }
        if (isPremium) return;
        if (child['label'] === undefined && child['emoji'] === undefined) {
          issues.push({
            path: at('label'),
            code: 'BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED',
            message: 'A label or emoji is required',
          });
        }
      }
      if (
        child['type'] === 2 ||
        child['type'] === 3 ||
        (typeof child['type'] === 'number' && child['type'] >= 5)
      ) {
        const id = child['custom_id'];
        if (typeof id !== 'string' || id.length < 1 || id.length > 100) {
          issues.push({
            path: at('custom_id'),
            code: 'BASE_TYPE_BAD_LENGTH',
            message: 'Must be between 1 and 100 in length.',
          });
        } else if (customIds.has(id)) {
          issues.push({
            path: at('custom_id'),
            code: 'COMPONENT_CUSTOM_ID_DUPLICATED',
            message: 'Component custom id cannot be duplicated',
          });
        } else {
          customIds.add(id);
        }
      }
    });
  });
}

function allowedMentionsIssues(value: unknown, issues: Issue[]): void {
  if (!isRecord(value)) return;
  const parse = arrayOf(value['parse']);
  for (const kind of ['users', 'roles'] as const) {
    if (parse.includes(kind) && arrayOf(value[kind]).length > 0) {
      issues.push({
        path: ['allowed_mentions', 'parse'],
        code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        message: `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
      });
    }
  }
}

/**
 * The documented limits of a message body (message create/edit, interaction reply, webhook message).
 * `requireContent`: creating a message needs at least one of content, embeds, components, files,
 * sticker_ids or poll (Discord answers 50006 "Cannot send an empty message").
 */
export function messageLimitIssues(body: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!isRecord(body)) return issues;
  maxLength(issues, ['content'], body['content'], 2000);
  embedIssues(body['embeds'], issues);
  componentIssues(body['components'], issues);
  allowedMentionsIssues(body['allowed_mentions'], issues);
  return issues;
}

/** Autocomplete answers: at most 25 choices, name and value 1-100 characters. */
export function autocompleteIssues(data: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!isRecord(data)) {
    issues.push({ path: ['data'], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
    return issues;
  }
  const choices = arrayOf(data['choices']);
  if (choices.length > 25) {
    issues.push({
      path: ['data', 'choices'],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: 'Must be 25 or fewer in length.',
    });
  }
  choices.forEach((choice, i) => {
    if (!isRecord(choice)) return;
    const name = choice['name'];
    if (typeof name !== 'string' || name.length < 1 || name.length > 100) {
      issues.push({
        path: ['data', 'choices', i, 'name'],
        code: 'BASE_TYPE_BAD_LENGTH',
        message: 'Must be between 1 and 100 in length.',
      });
    }
    const value = choice['value'];
    if (typeof value === 'string' && (value.length < 1 || value.length > 100)) {
      issues.push({
        path: ['data', 'choices', i, 'value'],
        code: 'BASE_TYPE_BAD_LENGTH',
        message: 'Must be between 1 and 100 in length.',
      });
    }
  });
  return issues;
}

/** True when a message body would be empty: Discord answers 50006. */
export function isEmptyMessage(body: Record<string, unknown>, fileCount: number): boolean {
  const content = body['content'];
  const hasContent = typeof content === 'string' && content.length > 0;
  return (
    !hasContent &&
    arrayOf(body['embeds']).length === 0 &&
    arrayOf(body['components']).length === 0 &&
    arrayOf(body['sticker_ids']).length === 0 &&
    body['poll'] == null &&
    fileCount === 0
  );
}

/** Discord's error tree: `{ embeds: { 0: { title: { _errors: [{ code, message }] } } } }`. */
export function errorTree(
  issues: readonly Issue[],
  prefix: readonly (string | number)[] = [],
): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const issue of issues) {
    let node = root;
    for (const seg of [...prefix, ...issue.path]) {
      const key = String(seg);
      const next = node[key];
      if (isRecord(next)) {
        node = next;
      } else {
        const created: Record<string, unknown> = {};
        node[key] = created;
        node = created;
      }
    }
    const list = Array.isArray(node['_errors']) ? (node['_errors'] as unknown[]) : [];
    list.push({ code: issue.code, message: issue.message });
    node['_errors'] = list;
  }
  return root;
}
