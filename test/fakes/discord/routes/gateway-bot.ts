/**
 * GET /gateway and /gateway/bot: where discord.js opens its WebSocket (the fake's own gateway).
 */
import type { RestContext } from '../rest-context.js';

export function registerGatewayRoutes(rest: RestContext): void {
  const { gatewayUrl, add } = rest;

  add('GET', '/gateway', () => ({ status: 200, body: { url: gatewayUrl() } }), false);
  add('GET', '/gateway/bot', () => ({
    status: 200,
    body: {
      url: gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    },
  }));
}
