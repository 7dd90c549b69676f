/**
 * What a board filter does, as a message text: its name, the tags it hides and spoilers (named when the
 * names are known, else counted), its complex rules in code blocks, its description; bounded so a reply
 * with it fits Discord's 2,000 characters. Pure: the names are looked up by the caller.
 */
import { sayEnglish, type Say } from '../i18n/index.js';
import type { Filter } from '../philomena/schemas.js';
import type { Site } from '../philomena/sites.js';
import { escapeInline, truncate, truncateMarkdown } from './discord-text.js';

/** Characters of the filter's name (the board sets no limit) and of its description, before escaping. */
const NAME_MAX = 100;
const DESCRIPTION_MAX = 300;
/**
 * What `describeFilter` may take: the bounded parts alone (escaped name, two tag lists, two rule blocks,
 * escaped description) could add up to about 2,300 characters, past Discord's 2,000 for a message, so the
 * description gets what room is left. The rest of the 2,000 is for the reply's own first line.
 */
const DESCRIBE_FILTER_MAX = 1_700;
/** Tags named per list; the rest are counted ("and 12 more"). */
export const NAMED_TAGS_MAX = 15;
/** Characters of one list of tag names, and of one kind of complex rules. */
const TAG_LIST_MAX = 350;
const RULES_MAX = 300;
const RULE_LINES_MAX = 5;

/** How `describeFilter` writes: its bound, and its words (`filter.*`; English when not given). */
export interface DescribeFilterOptions {
  readonly max?: number;
  readonly say?: Say;
}

function ruleLines(text: string | null): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** `explicit, grotesque and 3 more`: escaped names (sorted), as many as fit, the rest counted. */
function tagList(ids: readonly number[], names: ReadonlyMap<number, string>, say: Say): string {
  const known = ids
    .slice(0, NAMED_TAGS_MAX)
    .flatMap((id) => {
      const name = names.get(id);
      return name === undefined ? [] : [name];
    })
    .sort((a, b) => a.localeCompare(b));
  const shown: string[] = [];
  let length = 0;
  for (const name of known) {
    const escaped = escapeInline(name);
    if (length + escaped.length + 2 > TAG_LIST_MAX) break;
    shown.push(escaped);
    length += escaped.length + 2;
  }
  const more = ids.length - shown.length;
  if (shown.length === 0) return '';
  return more > 0 ? say('filter.names-more', { names: shown.join(', '), count: more }) : shown.join(', ');
}

/** The rules in a code block: nothing in it formats or pings; a backtick cannot close it early. */
function rulesBlock(lines: readonly string[]): string {
  const kept = lines.slice(0, RULE_LINES_MAX).map((line) => line.replaceAll('`', '\u02cb'));
  let body = truncate(kept.join('\n'), RULES_MAX);
  if (lines.length > kept.length && !body.endsWith('\u2026')) body += '\n\u2026';
  return `\`\`\`\n${body}\n\`\`\``;
}

function listLine(
  verb: 'hides' | 'spoilers',
  ids: readonly number[],
  rules: readonly string[],
  names: ReadonlyMap<number, string> | undefined,
  say: Say,
): string {
  const counts =
    rules.length > 0
      ? say(`filter.${verb}-with-rules`, { tags: ids.length, rules: rules.length })
      : say(`filter.${verb}`, { tags: ids.length });
  const list = names === undefined ? '' : tagList(ids, names, say);
  const line = list === '' ? say('filter.counted', { counts }) : say('filter.listed', { counts, list });
  return rules.length > 0 ? `${line}\n${rulesBlock(rules)}` : line;
}

/**
 * What a filter does: name, the tags it hides and spoilers (named when `names` has them, else counted),
 * its complex rules, and its description; at most `max` characters (the description is cut to fit), in
 * the words of `say` (a bare number is read as `max`, as before).
 */
export function describeFilter(
  filter: Filter,
  site: Site,
  names?: ReadonlyMap<number, string>,
  options: number | DescribeFilterOptions = {},
): string {
  const { max = DESCRIBE_FILTER_MAX, say = sayEnglish } =
    typeof options === 'number' ? { max: options } : options;
  const lines = [
    say('filter.heading', {
      name: escapeInline(truncate(filter.name, NAME_MAX)),
      // An id names the filter: written as the board writes it, never grouped.
      id: String(filter.id),
      site: escapeInline(site.name),
    }),
    listLine('hides', filter.hidden_tag_ids, ruleLines(filter.hidden_complex), names, say),
    listLine('spoilers', filter.spoilered_tag_ids, ruleLines(filter.spoilered_complex), names, say),
  ];
  const description = filter.description.trim();
  const room = max - lines.join('\n').length - '\n> '.length;
  if (description !== '' && room > 20) {
    // Escaping can double the text, so it is cut again, escaped, to the room left.
    const escaped = escapeInline(truncate(description, DESCRIPTION_MAX));
    lines.push(`> ${truncate(escaped, room)}`);
  }
  return truncateMarkdown(lines.join('\n'), max);
}
