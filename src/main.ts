/** The entry point: configuration, logger, store, board clients, bot; then start. Nothing else. */
import { existsSync } from 'node:fs';
import type Keyv from 'keyv';
import { pino } from 'pino';
import { createFeatures } from '../commands/index.js';
import { USER_ERROR_IDS } from '../commands/shared/error-texts.js';
import { createBot } from './discord/bot.js';
import { loginFailure } from './discord/gateway-session.js';
import { installProcessGuards } from './discord/process-guards.js';
import { checkBoardSettings, checkFloor } from './startup-checks.js';
import { loadConfig, projectUserAgent } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './logger.js';
import { runtimeOptionsOf } from './runtime-options.js';
import { createBotMetrics, serveMetrics, type MetricsServer } from './metrics/index.js';
import { createClientRegistry } from './philomena/registry.js';
import { createRedisBudgetSlots } from './redis/redis-budget-slots.js';
import { createRedisFlights } from './redis/redis-flights.js';
import { createRedisIdentifyThrottle } from './redis/redis-identify-throttle.js';
import { createRedisLeases } from './redis/redis-leases.js';
import { createRedisSiteState } from './redis/redis-site-state.js';
import { redisClientOfStore } from './redis/scripts.js';
import { closeStore, logStoreErrors, openStore, startStoreSweeper, storeSecretsOf } from './store/index.js';

/** How long interactions in flight may take to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000;
/** After this, a shutdown that hangs (board request, store) gives way to exit 1. */
const SHUTDOWN_FORCE_MS = SHUTDOWN_GRACE_MS + 5_000;

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
    // The Redis password of STORE_URL too: no line may carry it, whatever error quotes the URL.
    // The secrets that seal members' board keys too (MEMBER_KEY_SECRET, its previous one).
    secrets: [
      config.discordToken,
      config.booruApiKey,
      config.memberKeySecret,
      config.memberKeySecretPrevious,
      ...storeSecretsOf(config.storeUrl),
    ],
    destination,
  });

  let store: Keyv;
  try {
    store = await openStore(config.storeUrl);
  } catch (error) {
    // One line a person can act on (openStore's message says how to fix it); a stack would only bury it.
    logger.fatal(error instanceof Error ? error.message : String(error));
    flush();
    process.exit(1);
  }
  logStoreErrors(store, logger);
  // Expired cache and paging entries are deleted in the background; closeStore stops it.
  startStoreSweeper(store, { logger });

  // Metrics only when an operator asked for them (METRICS_PORT): their observers go to every layer.
  const metrics =
    config.metricsPort === undefined ? undefined : createBotMetrics({ userErrorIds: USER_ERROR_IDS });
  let shuttingDown = false;
  // With a Redis store, every process of the bot shares each site's Retry-After pause, breaker, request
  // budget and in-flight requests (one board call for identical requests of any process) through it, on
  // the store's own connection; with SQLite or memory the process is alone and keeps its own.
  const redisClient = redisClientOfStore(store);
  const shared =
    redisClient === undefined ? undefined : createRedisSiteState({ client: redisClient, logger });
  // No API key for the board clients: the bot makes no call that needs it, and a key lends the owner's
  // account rights to whatever request carries it (README, "The API key").
  const registry = createClientRegistry({
    defaultSite: config.site,
    userAgent: projectUserAgent(),
    cache: store,
    logger,
    ...(shared === undefined ? {} : { shared }),
    ...(redisClient === undefined
      ? {}
      : {
          budget: { shared: createRedisBudgetSlots({ client: redisClient, logger }) },
          flights: createRedisFlights({ client: redisClient, logger }),
        }),
    ...(metrics === undefined ? {} : { observer: metrics.philomena }),
  });
  checkFloor({ defaults: config.floor.defaults, logger });
  void checkBoardSettings({
    apiKey: config.booruApiKey,
    filterId: config.booruFilterId,
    client: registry.client(config.site),
    logger,
  });
  // The composition root: the features (commands, the unfurler, what they share) over the runtime.
  const features = createFeatures({
    config,
    logger,
    store,
    registry,
    ...(metrics === undefined
      ? {}
      : {
          onUnfurlDecision: metrics.unfurlDecision,
          onFeedPoll: metrics.feedPoll,
          onRuleDecision: metrics.ruleDecision,
        }),
    // Each feed group is polled by one process of the bot per interval.
    ...(redisClient === undefined ? {} : { leases: createRedisLeases({ client: redisClient, logger }) }),
  });
  const bot = createBot({
    options: runtimeOptionsOf(config),
    logger,
    store,
    ...features,
    ...(metrics === undefined ? {} : { observer: metrics.runtime }),
    // Shards over several processes (SHARD_IDS) identify one bucket at a time across all of them.
    ...(redisClient === undefined
      ? {}
      : {
          identify: (maxConcurrency: number) =>
            createRedisIdentifyThrottle({ client: redisClient, logger, maxConcurrency }),
        }),
  });
  let metricsServer: MetricsServer | undefined;
  if (metrics !== undefined && config.metricsPort !== undefined) {
    try {
      metricsServer = await serveMetrics(metrics, {
        host: config.metricsHost,
        port: config.metricsPort,
        logger,
        store,
        registry,
        bot,
        shuttingDown: () => shuttingDown,
      });
    } catch (error) {
      logger.fatal(error instanceof Error ? error.message : String(error));
      await registry.close({ force: true });
      await closeStore(store);
      flush();
      process.exit(1);
    }
  }
  installProcessGuards(
    logger,
    async () => {
      // /readyz turns 503 at once, so a load balancer stops sending here while the work in flight drains.
      shuttingDown = true;
      await bot.stop({ graceMs: SHUTDOWN_GRACE_MS });
      // The grace is over: board requests still running have nobody to answer, so drop them rather than
      // wait up to a whole request timeout for them.
      await registry.close({ force: true });
      await closeStore(store);
      await metricsServer?.close();
    },
    { forceExitAfterMs: SHUTDOWN_FORCE_MS, flush },
  );
  try {
    await bot.start();
  } catch (error) {
    // One line with the real cause (a refused token, a Discord out of reach, a refused intent ...) and
    // what to fix; the error itself goes along for detail.
    const failure = loginFailure(error, config.discordApiUrl);
    logger.fatal({ err: error, failure: failure.kind }, failure.line);
    await metricsServer?.close();
    await registry.close({ force: true });
    await closeStore(store);
    flush();
    process.exit(1);
  }
}

void main();
