/**
 * The operator's port (METRICS_PORT, bound to METRICS_HOST): `/healthz` (the process runs), `/readyz`
 * (it can serve: Discord ready, the store answering, not shutting down) and `/metrics` (Prometheus text).
 * Plain node:http, GET and HEAD only; nothing here reads a request body or echoes the request.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type Keyv from 'keyv';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';

/** The checks of `/readyz`, each true when it passes. */
export type ReadinessCheck = 'discord' | 'store' | 'shutdown';

export interface ReadinessReport {
  readonly ready: boolean;
  /** The checks that failed, in a fixed order (empty when ready). */
  readonly failed: readonly ReadinessCheck[];
  /** The gateway shards this process owns, each with whether it is ready (SHARD_IDS, or all). */
  readonly shards: readonly { readonly shard: number; readonly ready: boolean }[];
}

export interface ReadinessSources {
  /** The Discord connection is ready: every owned shard (the bot's `ready`). */
  readonly discordReady: () => boolean;
  /** The owned shards and which are ready, shown in the report; default none listed. */
  readonly shards?: () => readonly { readonly shard: number; readonly ready: boolean }[];
  /** Resolves when the store answers; rejects or resolves false otherwise. */
  readonly storeAnswers: () => Promise<boolean>;
  /** The process is stopping (a signal came): readiness goes at once, before the drain ends. */
  readonly shuttingDown: () => boolean;
}

export function createReadiness(sources: ReadinessSources): () => Promise<ReadinessReport> {
  return async () => {
    const failed: ReadinessCheck[] = [];
    if (!sources.discordReady()) failed.push('discord');
    const store = await sources.storeAnswers().catch(() => false);
    if (!store) failed.push('store');
    if (sources.shuttingDown()) failed.push('shutdown');
    const shards = sources.shards?.() ?? [];
    return { ready: failed.length === 0, failed, shards };
  };
}

const PROBE_KEY = 'metrics:readyz-probe';

/**
 * Whether `store` answers: a write and a read back of one short-lived key, within `timeoutMs`. keyv reports
 * storage failures as 'error' events and returns undefined instead of throwing, so only reading back what
 * was written proves the store works. Probes asked while one runs share it.
 */
export function createStoreProbe(store: Keyv, options: { readonly timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 2_000;
  let running: Promise<boolean> | undefined;
  let sequence = 0;
  // One key per process: processes sharing a Redis would otherwise read each other's value and fail.
  const key = `${PROBE_KEY}:${randomUUID()}`;

  async function probe(): Promise<boolean> {
    sequence += 1;
    const value = `${process.pid}:${sequence}`;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const check = (async () => {
      await store.set(key, value, 60_000);
      return (await store.get(key)) === value;
    })();
    try {
      return await Promise.race([check.catch(() => false), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  return (): Promise<boolean> => {
    running ??= probe().finally(() => {
      running = undefined;
    });
    return running;
  };
}

export interface MetricsServerOptions {
  readonly host: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly registry: Registry;
  readonly readiness: () => Promise<ReadinessReport>;
  readonly logger: Logger;
}

export interface MetricsServer {
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening and drops open connections (a scraper's keep-alive must not hold the exit). */
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}

/** Listens on `host:port`; rejects (EADDRINUSE, EACCES ...) when it cannot. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, readiness, logger } = options;

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      send(response, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    const path = (request.url ?? '/').split('?')[0];
    switch (path) {
      case '/healthz':
        send(response, 200, 'text/plain; charset=utf-8', 'ok\n');
        return;
      case '/readyz': {
        const report = await readiness();
        send(response, report.ready ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`);
        return;
      }
      case '/metrics':
        send(response, 200, registry.contentType, await registry.metrics());
        return;
      default:
        send(response, 404, 'text/plain; charset=utf-8', 'not found: try /healthz, /readyz or /metrics\n');
    }
  }

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      logger.warn({ err: error, path: request.url?.split('?')[0] }, 'metrics request failed');
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => logger.warn({ err: error }, 'metrics server error'));
  const address = server.address();
  // A server listening on a host and port has an AddressInfo (a string is a pipe or socket path).
  if (address === null || typeof address === 'string') throw new Error('the metrics server has no TCP port');
  const { port } = address;
  let closed: Promise<void> | undefined;
  return {
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
