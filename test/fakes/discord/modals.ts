/**
 * Modals as Discord takes and gives them back: the limits of a modal callback (type 9) that the OpenAPI
 * schema leaves out or states more loosely (docs/discord-platform.md, "Modals gained a Label component"),
 * and the fields a member can fill in, read back by the submit step (scenario/modals.ts).
 *
 * A modal: custom_id 1-100, title 1-45, 1-5 top-level components, each a Label (type 18: label 1-45,
 * description up to 100, exactly one component: a text input or a string select), a Text Display (type
 * 10), or the deprecated action row holding one text input. A text input (type 4): custom_id 1-100,
 * style 1 (short) or 2 (paragraph), min_length 0-4000, max_length 1-4000 and not under min_length,
 * value up to 4000 (and up to max_length), placeholder up to 100. Custom ids are unique in the modal.
 */
import type { Issue } from './validate.js';

const LABEL = 18;
const TEXT_DISPLAY = 10;
const ACTION_ROW = 1;
const TEXT_INPUT = 4;
const STRING_SELECT = 3;

const MAX_TOP_LEVEL = 5;
const TEXT_MAX = 4000;

type Path = readonly (string | number)[];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const length = (value: unknown): number => (typeof value === 'string' ? [...value].length : 0);

/** A field of a shown modal the member can fill in, as the submit step needs it. */
export type ModalField =
  | {
      readonly kind: 'text';
      /** The id Discord numbered the field's component with, and its Label's (or action row's). */
      readonly id: number;
      readonly holderId: number;
      readonly holderType: number;
      readonly customId: string;
      readonly required: boolean;
      readonly minLength: number;
      readonly maxLength: number;
      readonly prefilled: string;
    }
  | {
      readonly kind: 'select';
      readonly id: number;
      readonly holderId: number;
      readonly holderType: number;
      readonly customId: string;
      readonly required: boolean;
      readonly minValues: number;
      readonly maxValues: number;
      readonly offered: readonly string[];
    };

function between(issues: Issue[], path: Path, value: unknown, min: number, max: number): void {
  if (typeof value !== 'string' || length(value) < min || length(value) > max) {
    issues.push({
      path: [...path],
      code: 'BASE_TYPE_BAD_LENGTH',
      message: `Must be between ${min} and ${max} in length.`,
    });
  }
}

function atMost(issues: Issue[], path: Path, value: unknown, max: number): void {
  if (value !== undefined && value !== null && length(value) > max) {
    issues.push({
      path: [...path],
      code: 'BASE_TYPE_MAX_LENGTH',
      message: `Must be ${max} or fewer in length.`,
    });
  }
}

function intIn(issues: Issue[], path: Path, value: unknown, min: number, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    issues.push({ path: [...path], code: 'NUMBER_TYPE_MAX', message: `Must be between ${min} and ${max}.` });
  }
}

function customId(issues: Issue[], path: Path, id: unknown, seen: Set<string>): void {
  between(issues, [...path, 'custom_id'], id, 1, 100);
  if (typeof id !== 'string') return;
  if (seen.has(id)) {
    issues.push({
      path: [...path, 'custom_id'],
      code: 'COMPONENT_CUSTOM_ID_DUPLICATED',
      message: 'Component custom id cannot be duplicated',
    });
  }
  seen.add(id);
}

function textInputIssues(
  issues: Issue[],
  path: Path,
  input: Record<string, unknown>,
  seen: Set<string>,
): void {
  customId(issues, path, input['custom_id'], seen);
  if (input['style'] !== 1 && input['style'] !== 2) {
    issues.push({
      path: [...path, 'style'],
      code: 'BASE_TYPE_CHOICES',
      message: 'Value must be one of (1, 2).',
    });
  }
  intIn(issues, [...path, 'min_length'], input['min_length'], 0, TEXT_MAX);
  intIn(issues, [...path, 'max_length'], input['max_length'], 1, TEXT_MAX);
  const min = typeof input['min_length'] === 'number' ? input['min_length'] : 0;
  const max = typeof input['max_length'] === 'number' ? input['max_length'] : TEXT_MAX;
  if (min > max) {
    issues.push({
      path: [...path, 'min_length'],
      code: 'BASE_TYPE_BAD_LENGTH',
      message: 'min_length cannot be greater than max_length.',
    });
  }
  atMost(issues, [...path, 'value'], input['value'], Math.min(max, TEXT_MAX));
  atMost(issues, [...path, 'placeholder'], input['placeholder'], 100);
  if (
    input['required'] !== undefined &&
    input['required'] !== null &&
    typeof input['required'] !== 'boolean'
  ) {
    issues.push({
      path: [...path, 'required'],
      code: 'BASE_TYPE_BOOLEAN',
      message: 'Must be either true or false.',
    });
  }
}

function stringSelectIssues(
  issues: Issue[],
  path: Path,
  select: Record<string, unknown>,
  seen: Set<string>,
): void {
  customId(issues, path, select['custom_id'], seen);
  const options = Array.isArray(select['options']) ? select['options'] : [];
  if (options.length < 1 || options.length > 25) {
    issues.push({
      path: [...path, 'options'],
      code: 'BASE_TYPE_BAD_LENGTH',
      message: 'Must be between 1 and 25 in length.',
    });
  }
  intIn(issues, [...path, 'min_values'], select['min_values'], 0, 25);
  intIn(issues, [...path, 'max_values'], select['max_values'], 1, 25);
  atMost(issues, [...path, 'placeholder'], select['placeholder'], 150);
  options.forEach((option, i) => {
    if (!isRecord(option)) return;
    between(issues, [...path, 'options', i, 'label'], option['label'], 1, 100);
    between(issues, [...path, 'options', i, 'value'], option['value'], 1, 100);
  });
}

function choices(issues: Issue[], path: Path, allowed: readonly number[]): void {
  issues.push({
    path: [...path],
    code: 'UNION_TYPE_CHOICES',
    message: `Value of field "type" must be one of (${allowed.join(', ')}).`,
  });
}

/** What Discord refuses in a modal callback's `data` beyond the schema; paths start at `data`. */
export function modalIssues(data: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!isRecord(data))
    return [{ path: ['data'], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }];
  between(issues, ['data', 'custom_id'], data['custom_id'], 1, 100);
  between(issues, ['data', 'title'], data['title'], 1, 45);
  const components = Array.isArray(data['components']) ? data['components'] : [];
  if (components.length < 1 || components.length > MAX_TOP_LEVEL) {
    issues.push({
      path: ['data', 'components'],
      code: 'BASE_TYPE_BAD_LENGTH',
      message: `Must be between 1 and ${MAX_TOP_LEVEL} in length.`,
    });
  }
  const seen = new Set<string>();
  components.forEach((component, i) => {
    const path = ['data', 'components', i];
    if (!isRecord(component)) return;
    switch (component['type']) {
      case LABEL: {
        between(issues, [...path, 'label'], component['label'], 1, 45);
        atMost(issues, [...path, 'description'], component['description'], 100);
        const inner = component['component'];
        if (!isRecord(inner)) {
          issues.push({
            path: [...path, 'component'],
            code: 'BASE_TYPE_REQUIRED',
            message: 'This field is required',
          });
        } else if (inner['type'] === TEXT_INPUT) textInputIssues(issues, [...path, 'component'], inner, seen);
        else if (inner['type'] === STRING_SELECT)
          stringSelectIssues(issues, [...path, 'component'], inner, seen);
        else choices(issues, [...path, 'component'], [TEXT_INPUT, STRING_SELECT]);
        return;
      }
      case TEXT_DISPLAY:
        between(issues, [...path, 'content'], component['content'], 1, TEXT_MAX);
        return;
      case ACTION_ROW: {
        // The older form: one text input per row (deprecated for the Label, still taken).
        const children = Array.isArray(component['components']) ? component['components'] : [];
        const input: unknown = children[0];
        if (children.length !== 1 || !isRecord(input) || input['type'] !== TEXT_INPUT) {
          choices(issues, [...path, 'components'], [TEXT_INPUT]);
          return;
        }
        textInputIssues(issues, [...path, 'components', 0], input, seen);
        between(issues, [...path, 'components', 0, 'label'], input['label'], 1, 45);
        return;
      }
      default:
        choices(issues, path, [LABEL, TEXT_DISPLAY, ACTION_ROW]);
    }
  });
  return issues;
}

/**
 * The fields of a modal Discord took, with the ids Discord gives components that came without one (in
 * tree order from 1, skipping the ids already taken), and the Text Displays' ids (sent back too).
 */
export function modalFields(data: Record<string, unknown>): { fields: ModalField[]; texts: number[] } {
  const components = Array.isArray(data['components']) ? data['components'].filter(isRecord) : [];
  const taken = new Set<number>();
  const visit = (c: Record<string, unknown>): void => {
    if (typeof c['id'] === 'number') taken.add(c['id']);
    if (isRecord(c['component'])) visit(c['component']);
    if (Array.isArray(c['components'])) c['components'].filter(isRecord).forEach(visit);
  };
  components.forEach(visit);
  let next = 1;
  const idOf = (c: Record<string, unknown>): number => {
    if (typeof c['id'] === 'number') return c['id'];
    while (taken.has(next)) next += 1;
    taken.add(next);
    return next;
  };
  const fields: ModalField[] = [];
  const texts: number[] = [];
  for (const holder of components) {
    const holderId = idOf(holder);
    const holderType = Number(holder['type']);
    if (holderType === TEXT_DISPLAY) {
      texts.push(holderId);
      continue;
    }
    const inner = holderType === LABEL ? holder['component'] : arrayFirst(holder['components']);
    if (!isRecord(inner)) continue;
    const id = idOf(inner);
    const custom = String(inner['custom_id']);
    const required = inner['required'] !== false;
    if (inner['type'] === TEXT_INPUT) {
      fields.push({
        kind: 'text',
        id,
        holderId,
        holderType,
        customId: custom,
        required,
        minLength: typeof inner['min_length'] === 'number' ? inner['min_length'] : 0,
        maxLength: typeof inner['max_length'] === 'number' ? inner['max_length'] : TEXT_MAX,
        prefilled: typeof inner['value'] === 'string' ? inner['value'] : '',
      });
    } else {
      const options = Array.isArray(inner['options']) ? inner['options'].filter(isRecord) : [];
      fields.push({
        kind: 'select',
        id,
        holderId,
        holderType,
        customId: custom,
        required,
        minValues: typeof inner['min_values'] === 'number' ? inner['min_values'] : 1,
        maxValues: typeof inner['max_values'] === 'number' ? inner['max_values'] : 1,
        offered: options.map((o) => String(o['value'])),
      });
    }
  }
  return { fields, texts };
}

const arrayFirst = (value: unknown): unknown => (Array.isArray(value) ? value[0] : undefined);
