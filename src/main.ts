/** The entry point: configuration, logger, store, board clients, bot; then start. Nothing else. */
import { existsSync } from 'node:fs';
import { createBot } from './bot/bot.js';
import { installProcessGuards } from './bot/process-guards.js';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './logger.js';
import { createClientRegistry } from './philomena/registry.js';
import { closeStore, createStore } from './store.js';

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
  const logger = createLogger({ level: config.logLevel, secrets: [config.discordToken, config.booruApiKey] });
  const store = createStore(config.storeUrl);
  const registry = createClientRegistry({
    defaultSite: config.site,
    ...(config.booruApiKey === undefined ? {} : { apiKey: config.booruApiKey }),
    cache: store,
    logger,
  });
  const bot = createBot({ config, logger, store, registry });
  installProcessGuards(logger, async () => {
    await bot.stop();
    await registry.close();
    await closeStore(store);
  });
  try {
    await bot.start();
  } catch (error) {
    logger.fatal({ err: error }, 'could not connect to Discord (is DISCORD_TOKEN right?)');
    await registry.close();
    await closeStore(store);
    process.exit(1);
  }
}

void main();
