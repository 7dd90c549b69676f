/**
 * What an operator watches, per process: the metrics (metrics.ts) and the port that serves them with the
 * health and readiness checks (server.ts). main.ts creates the metrics only when METRICS_PORT is set,
 * hands their observers to the board registry, the features and the bot, then calls `serveMetrics`.
 */
import type Keyv from 'keyv';
import type { Bot } from '../discord/bot.js';
import { systemErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ClientRegistry } from '../philomena/registry.js';
import type { BotMetrics } from './metrics.js';
import { createReadiness, createStoreProbe, startMetricsServer, type MetricsServer } from './server.js';

export { createBotMetrics } from './metrics.js';
export type { BotMetrics, ScrapeSources, UnfurlDecisionLabel } from './metrics.js';
export { startMetricsServer } from './server.js';
export type { MetricsServer, ReadinessCheck, ReadinessReport } from './server.js';

export interface ServeMetricsOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly store: Keyv;
  readonly registry: ClientRegistry;
  readonly bot: Pick<Bot, 'ready' | 'gatewayPings' | 'shardStates'>;
  /** True from the moment the process begins to stop. */
  readonly shuttingDown: () => boolean;
}

/**
 * Points the scrape-time figures at the registry and the bot, and listens. Rejects with an error whose
 * message is one line naming METRICS_PORT and METRICS_HOST when the port cannot be had.
 */
export async function serveMetrics(
  metrics: BotMetrics,
  options: ServeMetricsOptions,
): Promise<MetricsServer> {
  const { bot, registry, host, port, logger } = options;
  metrics.collectFrom({ boardClients: () => registry.clients(), gatewayPings: () => bot.gatewayPings() });
  try {
    const server = await startMetricsServer({
      host,
      port,
      logger,
      registry: metrics.registry,
      readiness: createReadiness({
        discordReady: () => bot.ready,
        shards: () => bot.shardStates(),
        storeAnswers: createStoreProbe(options.store),
        shuttingDown: options.shuttingDown,
      }),
    });
    logger.info({ host, port: server.port }, 'metrics: /healthz, /readyz and /metrics');
    return server;
  } catch (error) {
    const code = systemErrorCode(error);
    throw new Error(
      `could not listen on METRICS_HOST ${host} port METRICS_PORT ${port} (${typeof code === 'string' ? code : String(error)}): choose a free port, an address of this machine, or leave METRICS_PORT blank`,
      { cause: error },
    );
  }
}
