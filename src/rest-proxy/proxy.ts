/**
 * One Discord REST proxy for every bot process (`npm run rest-proxy`): @discordjs/proxy in front of
 * Discord's API, so the processes share one view of Discord's rate limits (per route and global) instead
 * of each learning them alone and, together, going over. Each process points DISCORD_API_URL at it; the
 * proxy forwards each request with the caller's own Authorization header and keeps no token of its own.
 *
 * It runs one @discordjs/rest queue, so it is for the processes of one host (or a few behind one proxy).
 * Several hosts that must share limits without a single proxy want a clustered proxy (nirn-proxy); see the
 * README, "Running at scale".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { populateErrorResponse, populateSuccessfulResponse } from '@discordjs/proxy';
// From @discordjs/rest itself, not discord.js: the proxy tells a 429 apart with `instanceof` against the ES
// module build of @discordjs/rest, and discord.js loads the CommonJS one (another class).
import { REST, type RequestMethod } from '@discordjs/rest';

/** Discord's own REST base, as discord.js uses it. */
export const DISCORD_API = 'https://discord.com/api';

export interface RestProxyOptions {
  /** Where Discord is (a local Discord in tests). Default Discord's own API. */
  readonly upstream?: string;
  /** Default 127.0.0.1: the proxy carries bot tokens, so it listens on the machine unless told otherwise. */
  readonly host?: string;
  /** Default 8080; 0 picks a free port. */
  readonly port?: number;
  /** Told about a request that could not be forwarded (Discord unreachable); it was answered 502. */
  readonly onError?: (error: unknown) => void;
}

export interface RestProxy {
  /** The base URL to give the bots as DISCORD_API_URL, e.g. `http://127.0.0.1:8080/api`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * One request, as @discordjs/proxy's own `proxyRequests` forwards it (the route without `/api/vN`, the
 * caller's Authorization, the body streamed through, Discord's answer and errors passed back by the
 * library's `populate*`), except that a failure the library cannot turn into an answer (Discord
 * unreachable) is answered 502 instead of an empty 200 and an unhandled rejection that would end the
 * process for every bot behind it.
 */
async function forward(
  rest: REST,
  req: IncomingMessage,
  res: ServerResponse,
  onError: ((error: unknown) => void) | undefined,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const headers: Record<string, string> = {};
  if (req.headers['content-type'] !== undefined) headers['Content-Type'] = req.headers['content-type'];
  if (req.headers.authorization !== undefined) headers['authorization'] = req.headers.authorization;
  const reason = req.headers['x-audit-log-reason'];
  if (typeof reason === 'string') headers['x-audit-log-reason'] = reason;
  try {
    const answer = await rest.queueRequest({
      body: req,
      fullRoute: url.pathname.replace(/^\/api(\/v\d+)?/, '') as `/${string}`,
      // Discord itself answers a method it does not take (405).
      method: (req.method ?? 'GET') as RequestMethod,
      auth: false,
      passThroughBody: true,
      query: url.searchParams,
      headers,
    });
    await populateSuccessfulResponse(res, answer);
  } catch (error) {
    if (!populateErrorResponse(res, error)) {
      onError?.(error);
      if (!res.headersSent) res.statusCode = 502;
    }
  } finally {
    res.end();
  }
}

export async function startRestProxy(options: RestProxyOptions = {}): Promise<RestProxy> {
  // Limits are the proxy's to keep: a 429 goes back to the bot at once (its own REST client waits and
  // retries), and the proxy itself never retries, so one request never becomes several upstream.
  const rest = new REST({
    api: options.upstream ?? DISCORD_API,
    rejectOnRateLimit: () => true,
    retries: 0,
  });
  const server: Server = createServer((req, res) => {
    void forward(rest, req, res, options.onError);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/api`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
