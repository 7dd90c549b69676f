/**
 * The invariants every hostile-input property checks, written against Discord's documented behaviour
 * (docs/discord-platform.md, "Message and embed limits"), not against the bot's own constants: a check
 * that imported the limits from src/ would pass whatever those limits said.
 *
 * Each function returns a list of problems (empty when all is well), so a failing property prints what
 * broke, where, and the offending text.
 */

/** Discord's documented message and embed limits. */
const DISCORD = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  authorName: 256,
  total: 6000,
  url: 2048,
} as const;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Calls `visit` with every string inside `value` and its JSON path. */
export function walkStrings(value: unknown, visit: (path: string, text: string) => void, path = '$'): void {
  if (typeof value === 'string') visit(path, value);
  else if (Array.isArray(value)) value.forEach((item, i) => walkStrings(item, visit, `${path}[${i}]`));
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) walkStrings(item, visit, `${path}.${key}`);
  }
}

const show = (text: string): string => JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);

/** Every per-embed and per-message limit, plus the non-empty field rule. */
export function embedLimitProblems(embeds: readonly unknown[], content = ''): string[] {
  const problems: string[] = [];
  if (content.length > DISCORD.content) problems.push(`content is ${content.length} long`);
  if (embeds.length > DISCORD.embeds) problems.push(`${embeds.length} embeds`);
  let total = 0;
  embeds.forEach((raw, i) => {
    if (!isRecord(raw)) {
      problems.push(`embed ${i} is not an object`);
      return;
    }
    const check = (what: string, text: string | undefined, max: number): void => {
      if (text === undefined) return;
      total += text.length;
      if (text.length > max) problems.push(`embed ${i} ${what} is ${text.length} long (max ${max})`);
    };
    check('title', str(raw['title']), DISCORD.title);
    check('description', str(raw['description']), DISCORD.description);
    const footer = raw['footer'];
    if (isRecord(footer)) check('footer', str(footer['text']), DISCORD.footer);
    const author = raw['author'];
    if (isRecord(author)) check('author name', str(author['name']), DISCORD.authorName);
    const fields = Array.isArray(raw['fields']) ? raw['fields'] : [];
    if (fields.length > DISCORD.fields) problems.push(`embed ${i} has ${fields.length} fields`);
    fields.forEach((field: unknown, j) => {
      if (!isRecord(field)) return;
      const name = str(field['name']) ?? '';
      const value = str(field['value']) ?? '';
      if (name.trim() === '' && name !== '\u200b') problems.push(`embed ${i} field ${j} has an empty name`);
      if (value.trim() === '' && value !== '\u200b')
        problems.push(`embed ${i} field ${j} has an empty value`);
      check(`field ${j} name`, name, DISCORD.fieldName);
      check(`field ${j} value`, value, DISCORD.fieldValue);
    });
    for (const key of ['url']) {
      const url = str(raw[key]);
      if (url !== undefined && url.length > DISCORD.url)
        problems.push(`embed ${i} ${key} is ${url.length} long`);
    }
    for (const key of ['image', 'thumbnail']) {
      const media = raw[key];
      const url = isRecord(media) ? str(media['url']) : undefined;
      if (url !== undefined && url.length > DISCORD.url)
        problems.push(`embed ${i} ${key} is ${url.length} long`);
    }
  });
  if (total > DISCORD.total) problems.push(`the embeds hold ${total} characters (max ${DISCORD.total})`);
  return problems;
}

/** What Discord turns into a ping or a rendered mention. */
const MENTION = /@(?:everyone|here)|<@!?\d+>|<@&\d+>|<#\d+>/i;

/**
 * Mentions in `text`, read two ways: as written, and with Markdown escapes removed (`\<@1>` read as
 * `<@1>`). The second is stricter than Discord (which treats an escaped mention as text); the renderers
 * neutralise mentions with a zero-width space, which holds either way.
 */
export function mentionProblems(path: string, text: string): string[] {
  // Backslashes inside code are text, so the unescaped reading skips code.
  const unescaped = withoutCode(text).replace(/\\([\s\S])/g, '$1');
  if (MENTION.test(text)) return [`${path} holds a mention: ${show(text)}`];
  if (MENTION.test(unescaped)) return [`${path} holds a mention once unescaped: ${show(text)}`];
  return [];
}

/** Mentions in every text Discord renders of a message body: content and the embeds' text fields. */
export function messageMentionProblems(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const problems: string[] = [];
  const content = str(body['content']);
  if (content !== undefined) problems.push(...mentionProblems('content', content));
  const embeds = Array.isArray(body['embeds']) ? body['embeds'] : [];
  embeds.forEach((embed: unknown, i) => {
    if (!isRecord(embed)) return;
    const texts: [string, unknown][] = [
      ['title', embed['title']],
      ['description', embed['description']],
      ['footer', isRecord(embed['footer']) ? embed['footer']['text'] : undefined],
      ['author', isRecord(embed['author']) ? embed['author']['name'] : undefined],
    ];
    const fields = Array.isArray(embed['fields']) ? embed['fields'] : [];
    fields.forEach((field: unknown, j) => {
      if (!isRecord(field)) return;
      texts.push([`field ${j} name`, field['name']], [`field ${j} value`, field['value']]);
    });
    for (const [what, text] of texts) {
      if (typeof text === 'string') problems.push(...mentionProblems(`embed ${i} ${what}`, text));
    }
  });
  return problems;
}

/**
 * `text` without code blocks and unescaped inline code: Discord shows their content as typed, never as
 * a link or a mention.
 */
export function withoutCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, ' ').replace(/(^|[^\\])(`+)(?!`)[\s\S]*?[^`]\2(?!`)/g, '$1 ');
}

/**
 * Every `http://` URL in any string of `value` (masked link targets, `<autolinks>`, bare URLs, embed and
 * image URLs alike). Board text escapes the colon (`http\://`), which Discord shows as text, not a link,
 * so only an unescaped `http://` counts, and none inside code. `allowedOrigins` are left out (the local Philomena has no TLS,
 * so its own links stay http by design).
 */
export function httpProblems(value: unknown, allowedOrigins: readonly string[] = []): string[] {
  const problems: string[] = [];
  walkStrings(value, (path, text) => {
    // URL-valued fields are checked whole by embedUrlProblems (an https URL may hold `http://` in its path).
    if (/\.(?:url|icon_url|proxy_url)$/.test(path)) return;
    let rest = withoutCode(text);
    for (const origin of allowedOrigins) rest = rest.split(origin).join('');
    // An https URL is one link however its path reads (`<https://a.test/http://b>`).
    rest = rest.replace(/https:\/\/[^\s<>()]*/gi, ' ');
    if (/http:\/\//i.test(rest)) problems.push(`${path} shows an http: URL: ${show(text)}`);
  });
  return problems;
}

/** Any secret inside any string of `value`. */
function secretProblems(value: unknown, secrets: readonly string[]): string[] {
  const problems: string[] = [];
  walkStrings(value, (path, text) => {
    for (const secret of secrets)
      if (secret !== '' && text.includes(secret)) problems.push(`${path} leaks a secret`);
  });
  return problems;
}

/** URL-valued fields of embeds that must be https (a local http origin may be allowed). */
export function embedUrlProblems(
  embeds: readonly unknown[],
  allowedOrigins: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  const check = (what: string, url: unknown): void => {
    if (typeof url !== 'string') return;
    if (url.startsWith('https://')) return;
    if (allowedOrigins.some((origin) => url.startsWith(`${origin}/`))) return;
    problems.push(`${what} is not https: ${show(url)}`);
  };
  embeds.forEach((embed, i) => {
    if (!isRecord(embed)) return;
    check(`embed ${i} url`, embed['url']);
    for (const key of ['image', 'thumbnail', 'video']) {
      const media = embed[key];
      if (isRecord(media)) check(`embed ${i} ${key}`, media['url']);
    }
    for (const key of ['author', 'footer']) {
      const part = embed[key];
      if (isRecord(part)) {
        check(`embed ${i} ${key} url`, part['url']);
        check(`embed ${i} ${key} icon`, part['icon_url']);
      }
    }
  });
  return problems;
}

/** All checks of one outgoing message body (content + embeds). */
export function messageProblems(
  body: unknown,
  options: { readonly secrets: readonly string[]; readonly allowedOrigins?: readonly string[] },
): string[] {
  if (!isRecord(body)) return [];
  const origins = options.allowedOrigins ?? [];
  const embeds = Array.isArray(body['embeds']) ? (body['embeds'] as unknown[]) : [];
  const content = str(body['content']) ?? '';
  return [
    ...embedLimitProblems(embeds, content),
    ...messageMentionProblems(body),
    ...httpProblems(body, origins),
    ...embedUrlProblems(embeds, origins),
    ...secretProblems(body, options.secrets),
  ];
}
