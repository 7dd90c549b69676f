/**
 * The persistent key-value store behind the response cache (and anything else that wants one): keyv over
 * SQLite for `sqlite://path`, or an in-memory keyv for `memory://` (tests, throwaway runs). `openStore` is
 * what start-up uses: it also proves the store works before the bot relies on it.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { StoreOpenError } from './errors.js';

// Kept importable from here, where it is thrown; it lives in the one error hierarchy (errors.ts).
export { StoreOpenError } from './errors.js';

/**
 * `sqlite://data/bot.sqlite` (relative to the working directory), `sqlite:///abs/path.sqlite`, or
 * `memory://`. The SQLite file's directory is created. Anything else throws, naming the accepted forms.
 */
export function createStore(url: string): Keyv {
  const trimmed = url.trim();
  if (trimmed === 'memory://' || trimmed === 'memory:') return new Keyv();
  if (trimmed.startsWith('sqlite://')) {
    const file = trimmed.slice('sqlite://'.length);
    if (file === '')
      throw new Error('the store URL sqlite:// needs a file path, e.g. sqlite://data/bot.sqlite');
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return new Keyv({ store: new KeyvSqlite(`sqlite://${file}`) });
  }
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(trimmed)?.[0] ?? '(none)';
  throw new Error(
    `unsupported store URL scheme ${scheme}: use sqlite://<path> (e.g. sqlite://data/bot.sqlite) or memory://`,
  );
}

/** Closes the store's connection (a no-op for memory). */
export async function closeStore(store: Keyv): Promise<void> {
  await store.disconnect();
}

const PROBE_KEY = 'store:probe';

/**
 * keyv reports storage failures as 'error' events and returns false/undefined rather than throwing, and
 * SQLite opens lazily: a write and a read back is the only way to know at start that settings will stick.
 */
async function probe(store: Keyv): Promise<void> {
  let failure: unknown;
  const onError = (error: unknown): void => {
    failure ??= error;
  };
  store.on('error', onError);
  try {
    const value = Date.now();
    const written = await store.set(PROBE_KEY, value);
    const read: unknown = written === false ? undefined : await store.get(PROBE_KEY);
    if (read !== value) {
      if (failure instanceof Error) throw failure;
      throw new Error(failure === undefined ? 'a value written could not be read back' : String(failure));
    }
    await store.delete(PROBE_KEY);
  } finally {
    store.off('error', onError);
  }
}

/**
 * Creates the store of `url` and proves it works (write, read back, delete), so a bad STORE_URL stops the
 * bot at start instead of silently losing every setting later. Throws a `StoreOpenError` whose message is
 * one line a person can act on.
 */
export async function openStore(url: string): Promise<Keyv> {
  let store: Keyv | undefined;
  try {
    store = createStore(url);
    await probe(store);
    return store;
  } catch (error) {
    if (store !== undefined) await store.disconnect().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreOpenError(
      `could not open the store at STORE_URL (${reason}): use a path whose folder exists or can be created and is writable, e.g. sqlite://data/bot.sqlite, or memory:// to keep nothing`,
      { cause: error },
    );
  }
}
