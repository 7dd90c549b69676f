/**
 * The persistent key-value store behind the response cache (and anything else that wants one): keyv over
 * SQLite for `sqlite://path`, or an in-memory keyv for `memory://` (tests, throwaway runs).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';

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
