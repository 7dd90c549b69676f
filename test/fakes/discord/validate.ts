/**
 * What real Discord would reject in a request body: first Discord's own OpenAPI description (compiled
 * with Ajv), then the documented limits the description leaves out or states more loosely (see
 * docs/discord-platform.md, "Message and embed limits"). Each problem is one `Issue` with the body path
 * it concerns, so the REST layer can answer with Discord's `50035 Invalid Form Body` error shape.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DISCORD_OPENAPI_FILE } from '../../support/shared.js';
import { IS_COMPONENTS_V2 } from './v2.js';

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
  ajv.addSchema(discriminateComponentUnions(doc) as object, DOC_ID);
  return ajv;
}

const COMPONENT_SCHEMA_REF = /^#\/components\/schemas\/(\w*Component\w*)$/;

/**
 * Discord checks a component against the one schema its `type` picks, and answers a `type` the place does
 * not take with one UNION_TYPE_CHOICES error on that component. A plain `oneOf` makes Ajv report every
 * branch instead (a too long text display drowned in "must be 1" from the six component schemas it is
 * not), so, in the compiled copy only, each `oneOf` of component schemas told apart by a distinct
 * required `type` becomes an `enum` on `type` plus one `if type = n then <schema n>` per branch. It
 * accepts exactly what the `oneOf` accepts (the types are distinct and required in every branch).
 */
function discriminateComponentUnions(doc: unknown): unknown {
  const schemas =
    isRecord(doc) && isRecord(doc['components']) && isRecord(doc['components']['schemas'])
      ? doc['components']['schemas']
      : {};
  const typeOf = (branch: unknown): number | undefined => {
    if (!isRecord(branch) || Object.keys(branch).length !== 1 || typeof branch['$ref'] !== 'string') {
      return undefined;
    }
    const name = COMPONENT_SCHEMA_REF.exec(branch['$ref'])?.[1];
    const schema = name === undefined ? undefined : schemas[name];
    if (!isRecord(schema) || !arrayOf(schema['required']).includes('type')) return undefined;
    const type = isRecord(schema['properties']) ? schema['properties']['type'] : undefined;
    const values = isRecord(type) ? arrayOf(type['enum']) : [];
    return values.length === 1 && typeof values[0] === 'number' ? values[0] : undefined;
  };
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isRecord(node)) return node;
    const branches = node['oneOf'];
    if (Array.isArray(branches) && Object.keys(node).length === 1) {
      const types = branches.map(typeOf);
      if (types.length > 1 && types.every((t) => t !== undefined) && new Set(types).size === types.length) {
        return {
          type: 'object',
          required: ['type'],
          properties: { type: { enum: types } },
          allOf: branches.map((branch: unknown, i) => ({
            if: { properties: { type: { const: types[i] } }, required: ['type'] },
            then: branch,
          })),
        };
      }
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]));
  };
  return visit(doc);
}

/** Discord's wording for a value outside a union's choices: a Python tuple, `(1,)` or `(2, 3)`. */
function unionChoicesMessage(values: readonly unknown[]): string {
  const list = [...values]
    .sort((a, b) => Number(a) - Number(b))
    .map(String)
    .join(', ');
  return `Value of field "type" must be one of (${list}${values.length === 1 ? ',' : ''}).`;
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
    case 'maximum':
      return {
        path,
        code: 'NUMBER_TYPE_MAX',
        message: `int value should be less than or equal to ${String(error.params['limit'])}.`,
      };
    case 'minimum':
      return {
        path,
        code: 'NUMBER_TYPE_MIN',
        message: `int value should be greater than or equal to ${String(error.params['limit'])}.`,
      };
    case 'enum': {
      // A component `type` the place does not take (see discriminateComponentUnions): Discord names the
      // component, not its `type` field.
      const values = arrayOf(error.params['allowedValues']);
      if (
        path.at(-1) === 'type' &&
        path.some((seg) => seg === 'components' || seg === 'accessory') &&
        values.every((v) => typeof v === 'number')
      ) {
        return { path: path.slice(0, -1), code: 'UNION_TYPE_CHOICES', message: unionChoicesMessage(values) };
      }
      return { path, code: 'SCHEMA_ENUM', message: error.message ?? 'enum' };
    }
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
 * Where Discord's documentation and the OpenAPI description disagree, the documentation wins (see
 * docs/discord-platform.md, its sources): `default_member_permissions` is documented as a string bit set
 * (what discord.js sends) while the description types it as an integer. Discord accepts both, so a digit
 * string is checked as the integer it stands for.
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

// Component types (Discord's ComponentType).
const ACTION_ROW = 1;
const BUTTON = 2;
const STRING_SELECT = 3;
const SECTION = 9;
const TEXT_DISPLAY = 10;
const THUMBNAIL = 11;
const MEDIA_GALLERY = 12;
const FILE = 13;
const SEPARATOR = 14;
const CONTAINER = 17;
const SELECTS: readonly number[] = [STRING_SELECT, 5, 6, 7, 8];

/** What each place takes (components reference: "... Child Components" tables). */
const CLASSIC_TOP_LEVEL: readonly number[] = [ACTION_ROW];
const V2_TOP_LEVEL: readonly number[] = [
  ACTION_ROW,
  SECTION,
  TEXT_DISPLAY,
  MEDIA_GALLERY,
  FILE,
  SEPARATOR,
  CONTAINER,
];
const CONTAINER_CHILDREN: readonly number[] = [
  ACTION_ROW,
  SECTION,
  TEXT_DISPLAY,
  MEDIA_GALLERY,
  FILE,
  SEPARATOR,
];
const ACTION_ROW_CHILDREN: readonly number[] = [BUTTON, ...SELECTS];
const SECTION_CHILDREN: readonly number[] = [TEXT_DISPLAY];
const SECTION_ACCESSORIES: readonly number[] = [BUTTON, THUMBNAIL];

/** Components V2: every component counts, nested ones included (gallery items are not components). */
const V2_MAX_COMPONENTS = 40;
/** Components V2: the text of all text displays together (discord/discord-api-docs#8562). */
const V2_MAX_TEXT = 4000;
const MEDIA_URL_MAX = 2048;
const ATTACHMENT_URL = /^attachment:\/\//i;

type Path = readonly (string | number)[];

/** What one walk over a message's components gathers across the tree. */
interface ComponentWalk {
  readonly issues: Issue[];
  readonly customIds: Set<string>;
  count: number;
  text: number;
}

function lengthBetween(issues: Issue[], path: Path, value: unknown, min: number, max: number): void {
  if (typeof value !== 'string' || [...value].length < min || [...value].length > max) {
    issues.push({
      path: [...path],
      code: 'BASE_TYPE_BAD_LENGTH',
      message: `Must be between ${min} and ${max} in length.`,
    });
  }
}

function itemCount(issues: Issue[], path: Path, list: readonly unknown[], min: number, max: number): void {
  if (list.length < min) {
    issues.push({
      path: [...path],
      code: 'BASE_TYPE_MIN_LENGTH',
      message: `Must be ${min} or more in length.`,
    });
  } else if (list.length > max) {
    issues.push({
      path: [...path],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Must be ${max} or fewer in length.`,
    });
  }
}

/** A component of a type its place does not take: Discord's answer names the component. */
function unionChoices(issues: Issue[], path: Path, allowed: readonly number[]): void {
  issues.push({ path: [...path], code: 'UNION_TYPE_CHOICES', message: unionChoicesMessage(allowed) });
}

/** Checks `list` as the children of one place, each of a type `allowed` holds. */
function childrenIssues(
  walk: ComponentWalk,
  path: Path,
  list: readonly unknown[],
  allowed: readonly number[],
): void {
  list.forEach((child, i) => {
    if (!isRecord(child)) return;
    if (typeof child['type'] !== 'number' || !allowed.includes(child['type'])) {
      unionChoices(walk.issues, [...path, i], allowed);
      return;
    }
    oneComponentIssues(walk, [...path, i], child);
  });
}

function customIdIssues(walk: ComponentWalk, path: Path, id: unknown): void {
  if (typeof id !== 'string' || id.length < 1 || id.length > 100) {
    lengthBetween(walk.issues, [...path, 'custom_id'], id, 1, 100);
  } else if (walk.customIds.has(id)) {
    walk.issues.push({
      path: [...path, 'custom_id'],
      code: 'COMPONENT_CUSTOM_ID_DUPLICATED',
      message: 'Component custom id cannot be duplicated',
    });
  } else {
    walk.customIds.add(id);
  }
}

/** An unfurled media item (`media` of thumbnails and gallery items, `file` of files). */
function mediaIssues(walk: ComponentWalk, path: Path, media: unknown, attachmentOnly: boolean): void {
  if (!isRecord(media)) {
    walk.issues.push({ path: [...path], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
    return;
  }
  const url = media['url'];
  maxLength(walk.issues, [...path, 'url'], url, MEDIA_URL_MAX);
  if (attachmentOnly) urlScheme(walk.issues, [...path, 'url'], url, ATTACHMENT_URL, 'attachment');
  else urlScheme(walk.issues, [...path, 'url'], url, MEDIA_URL, 'http, https, attachment');
}

function buttonIssues(walk: ComponentWalk, path: Path, button: Record<string, unknown>): void {
  const { issues } = walk;
  maxLength(issues, [...path, 'label'], button['label'], 80);
  if (button['style'] === 5) {
    urlScheme(issues, [...path, 'url'], button['url'], /^(?:https?|discord):\/\//i, 'http, https, discord');
    if (button['custom_id'] !== undefined) {
      issues.push({
        path: [...path, 'custom_id'],
        code: 'COMPONENT_CUSTOM_ID_NOT_ALLOWED',
        message: 'Link buttons cannot have a custom_id',
      });
    }
    return;
  }
  if (button['style'] === 6) return;
  if (button['label'] === undefined && button['emoji'] === undefined) {
    issues.push({
      path: [...path, 'label'],
      code: 'BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED',
      message: 'A label or emoji is required',
    });
  }
  customIdIssues(walk, path, button['custom_id']);
}

/**
 * A string select (components reference, String Select): custom_id 1-100, 1-25 options with label and
 * value 1-100 and description up to 100, unique values, placeholder up to 150, min_values 0-25 and
 * max_values 1-25, neither above the number of options, min not above max. Discord documents the limits,
 * not its error codes for the last three: the codes here are descriptive.
 */
function stringSelectIssues(walk: ComponentWalk, path: Path, select: Record<string, unknown>): void {
  const { issues } = walk;
  customIdIssues(walk, path, select['custom_id']);
  maxLength(issues, [...path, 'placeholder'], select['placeholder'], 150);
  const options = arrayOf(select['options']);
  itemCount(issues, [...path, 'options'], options, 1, 25);
  const values = new Set<string>();
  options.forEach((option, i) => {
    if (!isRecord(option)) return;
    const at = [...path, 'options', i];
    lengthBetween(issues, [...at, 'label'], option['label'], 1, 100);
    lengthBetween(issues, [...at, 'value'], option['value'], 1, 100);
    maxLength(issues, [...at, 'description'], option['description'], 100);
    const value = option['value'];
    if (typeof value !== 'string') return;
    if (values.has(value)) {
      issues.push({
        path: [...at, 'value'],
        code: 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED',
        message: 'Select component option values must be unique',
      });
    }
    values.add(value);
  });
  const min = select['min_values'] ?? 1;
  const max = select['max_values'] ?? 1;
  const bound = (key: string, value: unknown, low: number): void => {
    if (value == null) return;
    const at = [...path, key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < low) {
      issues.push({
        path: at,
        code: 'NUMBER_TYPE_MIN',
        message: `int value should be greater than or equal to ${low}.`,
      });
    } else if (value > 25) {
      issues.push({
        path: at,
        code: 'NUMBER_TYPE_MAX',
        message: 'int value should be less than or equal to 25.',
      });
    } else if (options.length > 0 && value > options.length) {
      issues.push({
        path: at,
        code: 'SELECT_COMPONENT_TOO_FEW_OPTIONS',
        message: `Must be at most the number of options (${options.length}).`,
      });
    }
  };
  bound('min_values', select['min_values'], 0);
  bound('max_values', select['max_values'], 1);
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    issues.push({
      path: [...path, 'min_values'],
      code: 'SELECT_COMPONENT_MIN_VALUES_ABOVE_MAX',
      message: 'min_values must be less than or equal to max_values.',
    });
  }
}

/**
 * An action row: 1-5 buttons or exactly one select (a select is as wide as the row: Discord answers
 * COMPONENT_LAYOUT_WIDTH_EXCEEDED on the component that does not fit).
 */
function actionRowIssues(walk: ComponentWalk, path: Path, row: Record<string, unknown>): void {
  const children = arrayOf(row['components']);
  itemCount(walk.issues, [...path, 'components'], children, 1, 5);
  const hasSelect = children.some((c) => isRecord(c) && SELECTS.includes(c['type'] as number));
  if (hasSelect && children.length > 1) {
    walk.issues.push({
      path: [...path, 'components', 1],
      code: 'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
      message: 'The specified component exceeds the maximum width',
    });
  }
  childrenIssues(walk, [...path, 'components'], children, ACTION_ROW_CHILDREN);
}

/** One component already known to be of a type its place takes, and its children. */
function oneComponentIssues(walk: ComponentWalk, path: Path, component: Record<string, unknown>): void {
  const { issues } = walk;
  walk.count += 1;
  switch (component['type']) {
    case ACTION_ROW:
      actionRowIssues(walk, path, component);
      break;
    case BUTTON:
      buttonIssues(walk, path, component);
      break;
    case STRING_SELECT:
      stringSelectIssues(walk, path, component);
      break;
    case 5:
    case 6:
    case 7:
    case 8:
      customIdIssues(walk, path, component['custom_id']);
      maxLength(issues, [...path, 'placeholder'], component['placeholder'], 150);
      break;
    case SECTION: {
      const children = arrayOf(component['components']);
      itemCount(issues, [...path, 'components'], children, 1, 3);
      childrenIssues(walk, [...path, 'components'], children, SECTION_CHILDREN);
      const accessory = component['accessory'];
      if (!isRecord(accessory)) {
        issues.push({
          path: [...path, 'accessory'],
          code: 'BASE_TYPE_REQUIRED',
          message: 'This field is required',
        });
      } else if (typeof accessory['type'] !== 'number' || !SECTION_ACCESSORIES.includes(accessory['type'])) {
        unionChoices(issues, [...path, 'accessory'], SECTION_ACCESSORIES);
      } else {
        oneComponentIssues(walk, [...path, 'accessory'], accessory);
      }
      break;
    }
    case TEXT_DISPLAY:
      lengthBetween(issues, [...path, 'content'], component['content'], 1, V2_MAX_TEXT);
      walk.text += textLength(component['content']);
      break;
    case THUMBNAIL:
      mediaIssues(walk, [...path, 'media'], component['media'], false);
      maxLength(issues, [...path, 'description'], component['description'], 1024);
      break;
    case MEDIA_GALLERY: {
      const items = arrayOf(component['items']);
      itemCount(issues, [...path, 'items'], items, 1, 10);
      items.forEach((item, i) => {
        if (!isRecord(item)) return;
        mediaIssues(walk, [...path, 'items', i, 'media'], item['media'], false);
        maxLength(issues, [...path, 'items', i, 'description'], item['description'], 1024);
      });
      break;
    }
    case FILE:
      // "The File component only supports using the attachment:// protocol".
      mediaIssues(walk, [...path, 'file'], component['file'], true);
      break;
    case SEPARATOR:
      break;
    case CONTAINER: {
      const children = arrayOf(component['components']);
      if (children.length === 0) {
        issues.push({
          path: [...path, 'components'],
          code: 'BASE_TYPE_MIN_LENGTH',
          message: 'Must be 1 or more in length.',
        });
      }
      childrenIssues(walk, [...path, 'components'], children, CONTAINER_CHILDREN);
      const color = component['accent_color'];
      if (
        color != null &&
        (typeof color !== 'number' || !Number.isInteger(color) || color < 0 || color > 0xffffff)
      ) {
        issues.push({
          path: [...path, 'accent_color'],
          code: typeof color === 'number' && color < 0 ? 'NUMBER_TYPE_MIN' : 'NUMBER_TYPE_MAX',
          message:
            typeof color === 'number' && color < 0
              ? 'int value should be greater than or equal to 0.'
              : 'int value should be less than or equal to 16777215.',
        });
      }
      break;
    }
    default:
      break;
  }
}

/**
 * A message's `components`. Classic messages take only action rows at the top level, at most 5. Components
 * V2 messages take action rows, sections, text displays, media galleries, files, separators and containers
 * at the top level; at most 40 components in all (nested ones counted) and 4,000 characters over all text
 * displays. Everywhere: custom_ids unique across the whole tree, the children each place takes.
 */
function componentIssues(components: unknown, issues: Issue[], componentsV2: boolean): void {
  const list = arrayOf(components);
  const walk: ComponentWalk = { issues, customIds: new Set(), count: 0, text: 0 };
  if (!componentsV2) itemCount(issues, ['components'], list, 0, 5);
  childrenIssues(walk, ['components'], list, componentsV2 ? V2_TOP_LEVEL : CLASSIC_TOP_LEVEL);
  if (!componentsV2) return;
  // Discord documents both totals but not the error for them: a length error on `components`, as for its
  // other length limits.
  if (walk.count > V2_MAX_COMPONENTS) {
    issues.push({
      path: ['components'],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Must be ${V2_MAX_COMPONENTS} or fewer in length (${walk.count} components, nested ones counted).`,
    });
  }
  if (walk.text > V2_MAX_TEXT) {
    issues.push({
      path: ['components'],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Text displays must hold ${V2_MAX_TEXT} or fewer characters in all (${walk.text}).`,
    });
  }
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

/** How a message body's components and fields are checked (see messageLimitIssues). */
export interface MessageRules {
  /** Check `components` as Components V2. Default: the body's own `flags` hold IS_COMPONENTS_V2. */
  readonly componentsV2?: boolean;
  /** The message is or becomes V2: content, embeds, poll and stickers are refused. Default: componentsV2. */
  readonly legacyFieldsRefused?: boolean;
}

const hasV2Flag = (flags: unknown): boolean => typeof flags === 'number' && (flags & IS_COMPONENTS_V2) !== 0;

/**
 * The fields a Components V2 message cannot carry (message resource: "Providing content, embeds,
 * sticker_ids, poll, or shared_client_theme will fail with a 400"). Empty values (`content: ""` or null,
 * `embeds: []`) set nothing and pass: discord.js sends `content: ""` for `content: null`.
 */
const LEGACY_FIELDS = ['content', 'embeds', 'sticker_ids', 'poll', 'shared_client_theme'] as const;

function setsField(body: Record<string, unknown>, key: string): boolean {
  const value = body[key];
  if (value == null || value === '') return false;
  return !Array.isArray(value) || value.length > 0;
}

function legacyFieldIssue(field: string): Issue {
  return {
    path: [field],
    code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    message: `The '${field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2`,
  };
}

/**
 * The documented limits of a message body (message create/edit, interaction reply, webhook message).
 * `rules` say how to read its components (classic or Components V2); by default the body's flags say.
 */
export function messageLimitIssues(body: unknown, rules: MessageRules = {}): Issue[] {
  const issues: Issue[] = [];
  if (!isRecord(body)) return issues;
  const componentsV2 = rules.componentsV2 ?? hasV2Flag(body['flags']);
  if (rules.legacyFieldsRefused ?? componentsV2) {
    for (const field of LEGACY_FIELDS) if (setsField(body, field)) issues.push(legacyFieldIssue(field));
  }
  maxLength(issues, ['content'], body['content'], 2000);
  embedIssues(body['embeds'], issues);
  componentIssues(body['components'], issues, componentsV2);
  allowedMentionsIssues(body['allowed_mentions'], issues);
  return issues;
}

/** What an edit needs to know of the message it changes. */
export interface EditedMessage {
  readonly flags: number;
  readonly content: string;
  readonly embeds: readonly unknown[];
}

/**
 * The limits of an edit (PATCH of a channel message, of a webhook or interaction message, callback 7).
 * IS_COMPONENTS_V2 can be set by an edit but never taken off: a V2 message stays V2 whatever `flags` the
 * edit sends, and refuses content and embeds. The components are checked by the edit's own `flags` when
 * it sends some (a V2 message edited with `flags: 0` has its containers refused as classic components,
 * UNION_TYPE_CHOICES "(1,)": discord-net/Discord.Net#3132), else by the message's. An edit that adds the
 * flag must empty the content and embeds the message has in the same request (message resource, Edit
 * Message: "must have their values reset to empty"), else it is refused.
 */
export function editLimitIssues(message: EditedMessage, body: unknown): Issue[] {
  if (!isRecord(body)) return [];
  const wasV2 = hasV2Flag(message.flags);
  const asksV2 = hasV2Flag(body['flags']);
  const issues = messageLimitIssues(body, {
    componentsV2: typeof body['flags'] === 'number' ? asksV2 : wasV2,
    legacyFieldsRefused: wasV2 || asksV2,
  });
  if (!wasV2 && asksV2) {
    // What the message holds must be emptied by this edit (one that sets it anew is refused above).
    if (message.content !== '' && !('content' in body)) issues.push(legacyFieldIssue('content'));
    if (message.embeds.length > 0 && !('embeds' in body)) issues.push(legacyFieldIssue('embeds'));
  }
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
