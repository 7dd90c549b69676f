/** The entry point: configuration, logger, store, board clients, bot; then start. Nothing else. */
import { existsSync } from 'node:fs';
import type Keyv from 'keyv';
import { pino } from 'pino';
import { createBot } from './bot/bot.js';
import { installProcessGuards } from './bot/process-guards.js';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './logger.js';
import { createClientRegistry } from './philomena/registry.js';
import { closeStore, createStore } from './store.js';

/** How long interactions in flight may take to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000;
/** After this, a shutdown that hangs (board request, store) gives way to exit 1. */
const SHUTDOWN_FORCE_MS = SHUTDOWN_GRACE_MS + 5_000;
const PROBE_KEY = 'store:probe';

/**
 * keyv reports storage failures as 'error' events and returns false/undefined rather than throwing, and
 * SQLite opens lazily: a write and a read back is the only way to know at start that settings will stick.
 */
async function probeStore(store: Keyv): Promise<void> {
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

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const destination = pino.destination({ dest: 1, sync: false });
  const flush = (): void => {
    try {
      destination.flushSync();
    } catch {
      // Not open yet or stdout gone: pino's own exit hook writes what it can.
    }
  };
  const logger = createLogger({
    level: config.logLevel,
    secrets: [config.discordToken, config.booruApiKey],
    destination,
  });

  let store: Keyv;
  try {
    store = createStore(config.storeUrl);
    await probeStore(store);
  } catch (error) {
    // One line a person can act on; a stack trace would only bury it.
    const reason = error instanceof Error ? error.message : String(error);
    logger.fatal(
      `could not open the store at STORE_URL (${reason}): use a path whose folder exists or can be created and is writable, e.g. sqlite://data/bot.sqlite, or memory:// to keep nothing`,
    );
    flush();
    process.exit(1);
  }
  store.on('error', (error: unknown) => logger.error({ err: error }, 'store error'));

  const registry = createClientRegistry({
    defaultSite: config.site,
    ...(config.booruApiKey === undefined ? {} : { apiKey: config.booruApiKey }),
    cache: store,
    logger,
  });
  const bot = createBot({ config, logger, store, registry });
  installProcessGuards(
    logger,
    async () => {
      await bot.stop({ graceMs: SHUTDOWN_GRACE_MS });
      await registry.close();
      await closeStore(store);
    },
    { forceExitAfterMs: SHUTDOWN_FORCE_MS, flush },
  );
  try {
    await bot.start();
  } catch (error) {
    logger.fatal({ err: error }, 'could not connect to Discord (is DISCORD_TOKEN right?)');
    await registry.close();
    await closeStore(store);
    flush();
    process.exit(1);
  }
}

void main();
