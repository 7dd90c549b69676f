/**
 * The one error hierarchy of the project. Every error has a stable `code` and carries structured data;
 * messages never contain a secret (URLs are redacted before they reach an error).
 *
 * The board's errors belong to the Philomena library (src/philomena/errors.ts) and are re-exported here,
 * so the application imports every error from this one module; the errors below are the application's.
 */

export * from './philomena/errors.js';

/** Bad configuration at start: lists every problem. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: readonly string[]) {
    super(`Configuration is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  override get name(): string {
    return 'ConfigError';
  }
}

/** The store named by STORE_URL cannot be used at start; the message says what went wrong and how to fix it. */
export class StoreOpenError extends Error {
  readonly code = 'STORE_UNAVAILABLE';
  override get name(): string {
    return 'StoreOpenError';
  }
}

/** What a store call was doing when it failed. */
export type StoreOperation = 'read' | 'write' | 'delete';

/**
 * A store call that failed (the database is locked, gone, full) or a write that kept losing to other
 * writers. keyv itself swallows such failures (a failed read looks like "nothing stored"); the record
 * operations of store.ts throw this instead, so a caller can never mistake a failure for an absence.
 */
export class StoreAccessError extends Error {
  readonly code = 'STORE_ACCESS_FAILED';
  constructor(
    message: string,
    readonly operation: StoreOperation,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
  override get name(): string {
    return 'StoreAccessError';
  }
}

const DONE: Readonly<Record<StoreOperation, string>> = { read: 'read', write: 'written', delete: 'deleted' };

/**
 * A server's settings could not be read, written or reset just now. The command that needed them fails
 * with a short message rather than running with the defaults: a server whose filter hides something must
 * never see it because the store hiccuped.
 */
export class SettingsUnavailableError extends Error {
  readonly code = 'SETTINGS_UNAVAILABLE';
  constructor(
    readonly operation: StoreOperation,
    readonly guildId: string,
    options?: { readonly cause?: unknown },
  ) {
    super(`the settings of server ${guildId} could not be ${DONE[operation]}`, options);
  }
  override get name(): string {
    return 'SettingsUnavailableError';
  }
}

/**
 * Runs one step of a member's own store (their settings, their keys): a store that failed becomes
 * `SettingsUnavailableError` for that member, so the command says so briefly instead of running without.
 */
export async function memberStoreStep<T>(userId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreAccessError) {
      throw new SettingsUnavailableError(error.operation, `member ${userId}`, { cause: error });
    }
    throw error;
  }
}
