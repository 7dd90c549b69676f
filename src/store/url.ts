/**
 * What a store URL says, without opening anything: whether `createStore` takes it (the config check asks
 * the same question, so the two cannot disagree), whether it names Redis, and the secret it holds.
 */

/** The accepted forms, as every message about a bad store URL names them. */
export const STORE_URL_FORMS =
  'sqlite://<path>, redis://[user:password@]host[:port][/db] (rediss:// for TLS) or memory://';

/**
 * What is wrong with a store URL, as a phrase that follows "STORE_URL" or "the store URL" and never repeats
 * the value (it may hold a password); undefined when `createStore` takes it. The config check and
 * `createStore` share it, so they cannot disagree.
 */
export function storeUrlProblem(url: string): string | undefined {
  const trimmed = url.trim();
  if (isMemoryUrl(trimmed)) return undefined;
  if (trimmed.startsWith('sqlite://'))
    return trimmed === 'sqlite://' ? 'needs a file path after sqlite://' : undefined;
  if (!isRedisUrl(trimmed)) return `must be ${STORE_URL_FORMS}`;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return 'is not a valid Redis URL (percent-encode special characters in the user and password)';
  }
  if (!/^rediss?:\/\//i.test(trimmed) || parsed.hostname === '') return 'names no Redis host';
  if (!/^\/?(?:\d{1,5})?$/.test(parsed.pathname)) return 'names a Redis db that is not a number';
  if (parsed.search !== '' || parsed.hash !== '')
    return 'has a ?query or #fragment, which a Redis URL does not take';
  return undefined;
}

export function isRedisUrl(url: string): boolean {
  return /^rediss?:/i.test(url.trim());
}

/** `memory://` (or `memory:`), already trimmed. */
export function isMemoryUrl(trimmed: string): boolean {
  return trimmed === 'memory://' || trimmed === 'memory:';
}

/**
 * The secrets in a store URL (a Redis password, as written and decoded), for the logger to scrub: Redis
 * and its client never echo it, but an error that quotes the URL must not carry it into the logs.
 */
export function storeSecretsOf(url: string): string[] {
  if (!isRedisUrl(url)) return [];
  try {
    const { password } = new URL(url.trim());
    if (password === '') return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // Not valid percent-encoding: the client sends it as written.
    }
    return [...new Set([password, decoded])];
  } catch {
    return [];
  }
}
