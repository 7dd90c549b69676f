/**
 * GET /gateway and /gateway/bot: where discord.js opens its WebSocket (the fake's own gateway), the shard
 * count it should use and its session_start_limit (remaining counts down per IDENTIFY; discord.js sizes
 * its identify throttler from max_concurrency).
 */
import type { RestContext } from '../rest-context.js';

export function registerGatewayRoutes(rest: RestContext): void {
  const { gatewayUrl, add, state } = rest;

  add('GET', '/gateway', () => ({ status: 200, body: { url: gatewayUrl() } }), false);
  add('GET', '/gateway/bot', () => ({
    status: 200,
    body: {
      url: gatewayUrl(),
      shards: state.shards,
      session_start_limit: {
        total: 1000,
        remaining: state.sessionStartsRemaining,
        reset_after: 14_400_000,
        max_concurrency: state.maxConcurrency,
      },
    },
  }));
}
