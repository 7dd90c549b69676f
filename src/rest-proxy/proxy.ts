/**
 * One Discord REST proxy for every bot process (`npm run rest-proxy`): @discordjs/proxy in front of
 * Discord's API, so the processes share one view of Discord's rate limits (per route and global) instead
 * of each learning them alone and, together, going over. Each process points DISCORD_API_URL at it; the
 * proxy forwards each request with the caller's own Authorization header.
 *
 * It relays only for its own bots (the rule, and why, is in access.ts): requests carrying one of the
 * configured tokens, and the interaction routes of those bots' applications, which carry no
 * Authorization. Everything else is answered 401 here and never reaches Discord. The tokens are held only
 * to compare with and, once each, to ask Discord for the token's application id.
 *
 * Interaction routes (the callback and the bots' interaction webhooks: src/discord/interaction-routes.ts)
 * go through a second queue with no global cap, as Discord holds them to no global limit; their per-route
 * buckets still apply there. Everything else shares the bots' global 50 requests a second. (Each bot
 * process does the same on its side: src/discord/interaction-rest.ts.)
 *
 * It runs one @discordjs/rest queue of each kind, so it is for the processes of one host (or a few behind one proxy).
 * Several hosts that must share limits without a single proxy want a clustered proxy (nirn-proxy); see the
 * README, "Running at scale".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { populateErrorResponse, populateSuccessfulResponse } from '@discordjs/proxy';
// From @discordjs/rest itself, not discord.js: the proxy tells a 429 apart with `instanceof` against the ES
// module build of @discordjs/rest, and discord.js loads the CommonJS one (another class).
import { DiscordAPIError, REST, RequestMethod } from '@discordjs/rest';
import { z } from 'zod';
import { redactUrl } from '../redact.js';
import {
  createApplicationIds,
  createTokenCheck,
  tokenInPathRoute,
  type ApplicationIds,
  type Lookup,
} from './access.js';

/** Discord's own REST base, as discord.js uses it. */
export const DISCORD_API = 'https://discord.com/api';

export interface RestProxyOptions {
  /**
   * The tokens of the bots it relays for (DISCORD_TOKEN, comma-separated for several bots); at least one.
   * A request with any other Authorization, or without one off the bots' interaction routes, gets 401.
   */
  readonly tokens: readonly string[];
  /** The bots' application ids when configured (DISCORD_APPLICATION_ID); else each is asked of Discord. */
  readonly applicationIds?: readonly string[];
  /** Where Discord is (a local Discord in tests). Default Discord's own API. */
  readonly upstream?: string;
  /** Default 127.0.0.1: the proxy carries bot tokens, so it listens on the machine unless told otherwise. */
  readonly host?: string;
  /** Default 8080; 0 picks a free port. */
  readonly port?: number;
  /** Told about a request that could not be forwarded (Discord unreachable); it was answered 502. */
  readonly onError?: (error: unknown) => void;
  /** Told about each refused request: its method and path, interaction and webhook tokens scrubbed. */
  readonly onRefused?: (request: { readonly method: string; readonly path: string }) => void;
  /** Told once for each configured token Discord refused (by its place in the list, from 1). */
  readonly onTokenRefused?: (position: number) => void;
}

export interface RestProxy {
  /** The base URL to give the bots as DISCORD_API_URL, e.g. `http://127.0.0.1:8080/api`. */
  readonly url: string;
  close(): Promise<void>;
}

/** What the proxy answers a request it will not relay: Discord's own 401 shape, naming no token. */
const REFUSED_BODY = JSON.stringify({
  message: '401: Unauthorized (this REST proxy relays only for the bot tokens it is configured with)',
  code: 0,
});

/** GET /applications/@me's answer, as far as the proxy reads it. */
const applicationSchema = z.object({ id: z.string().regex(/^\d{1,20}$/) });

/** The application of `token`, asked of Discord through the proxy's own queue (its limits apply). */
async function lookUpApplication(rest: REST, token: string): Promise<Lookup> {
  try {
    const answer = applicationSchema.safeParse(
      await rest.get('/applications/@me', { auth: false, headers: { authorization: `Bot ${token}` } }),
    );
    return answer.success ? { ok: true, applicationId: answer.data.id } : { ok: false, refused: false };
  } catch (error) {
    return { ok: false, refused: error instanceof DiscordAPIError && error.status === 401 };
  }
}

interface Gate {
  readonly isBotToken: (authorization: string) => boolean;
  readonly applications: ApplicationIds;
}

/** The proxy's two queues: `bound` under the global limit, `interactions` for the routes outside it. */
interface Queues {
  readonly bound: REST;
  readonly interactions: REST;
}

const REQUEST_METHODS: ReadonlySet<string> = new Set(Object.values(RequestMethod));

/** The methods @discordjs/rest sends (Discord's REST API takes no other). */
function isRequestMethod(method: string): method is RequestMethod {
  return REQUEST_METHODS.has(method);
}

/** A route as @discordjs/rest takes it. */
function isRoute(route: string): route is `/${string}` {
  return route.startsWith('/');
}

/**
 * Whether the request takes an interaction route (outside Discord's global limit), whatever Authorization
 * it carries: a webhook route only under one of the bots' application ids.
 */
async function isInteractionRoute(gate: Gate, method: string, route: string): Promise<boolean> {
  const found = tokenInPathRoute(method, route);
  if (found === undefined) return false;
  return found.kind === 'callback' || (await gate.applications.has(found.applicationId));
}

/** Whether the proxy relays this request (see access.ts). */
async function admitted(gate: Gate, method: string, route: string, authorization: string | undefined) {
  if (authorization !== undefined) return gate.isBotToken(authorization);
  const tokenRoute = tokenInPathRoute(method, route);
  if (tokenRoute === undefined) return false;
  return tokenRoute.kind === 'callback' || (await gate.applications.has(tokenRoute.applicationId));
}

/**
 * One request, as @discordjs/proxy's own `proxyRequests` forwards it (the route without `/api/vN`, the
 * caller's Authorization, the body streamed through, Discord's answer and errors passed back by the
 * library's `populate*`), except that a request the proxy does not relay for is answered 401 here, and a
 * failure the library cannot turn into an answer (Discord unreachable) is answered 502 instead of an
 * empty 200 and an unhandled rejection that would end the process for every bot behind it.
 */
async function forward(
  queues: Queues,
  gate: Gate,
  req: IncomingMessage,
  res: ServerResponse,
  options: RestProxyOptions,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const route = url.pathname.replace(/^\/api(\/v\d+)?/, '');
  const method = req.method ?? 'GET';
  const { authorization } = req.headers;
  let rest: REST;
  try {
    if (!(await admitted(gate, method, route, authorization))) {
      options.onRefused?.({ method, path: redactUrl(url.pathname) });
      // The body is not wanted: read it off so the connection can serve the caller's next request.
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(REFUSED_BODY);
      return;
    }
    rest = (await isInteractionRoute(gate, method, route)) ? queues.interactions : queues.bound;
  } catch (error) {
    // Not expected (look-ups answer rather than throw), but never an unhandled rejection.
    options.onError?.(error);
    req.resume();
    res.writeHead(502).end();
    return;
  }
  if (!isRequestMethod(method)) {
    // Discord takes no other method either (it would answer 405 too): not worth a trip upstream.
    req.resume();
    res.writeHead(405, { allow: [...REQUEST_METHODS].join(', ') }).end();
    return;
  }
  const headers: Record<string, string> = {};
  if (req.headers['content-type'] !== undefined) headers['Content-Type'] = req.headers['content-type'];
  if (authorization !== undefined) headers['authorization'] = authorization;
  const reason = req.headers['x-audit-log-reason'];
  if (typeof reason === 'string') headers['x-audit-log-reason'] = reason;
  try {
    const answer = await rest.queueRequest({
      body: req,
      fullRoute: isRoute(route) ? route : `/${route}`,
      method,
      auth: false,
      passThroughBody: true,
      query: url.searchParams,
      headers,
    });
    await populateSuccessfulResponse(res, answer);
  } catch (error) {
    if (!populateErrorResponse(res, error)) {
      options.onError?.(error);
      if (!res.headersSent) res.statusCode = 502;
    }
  } finally {
    res.end();
  }
}

/** Throws when no token is given: a proxy that relays for nobody is a configuration mistake. */
export async function startRestProxy(options: RestProxyOptions): Promise<RestProxy> {
  const tokens = options.tokens.map((token) => token.trim()).filter((token) => token !== '');
  if (tokens.length === 0) {
    throw new Error('the REST proxy needs the token of at least one bot to relay for (DISCORD_TOKEN)');
  }
  // Limits are the proxy's to keep: a 429 goes back to the bot at once (its own REST client waits and
  // retries), and the proxy itself never retries, so one request never becomes several upstream.
  const restOptions = { api: options.upstream ?? DISCORD_API, rejectOnRateLimit: () => true, retries: 0 };
  const rest = new REST(restOptions);
  const queues: Queues = {
    bound: rest,
    // Infinity: @discordjs/rest's global counter never runs out on its own; a global 429 from Discord
    // still stops this queue until its Retry-After (and goes back to the bot, which waits it out).
    interactions: new REST({ ...restOptions, globalRequestsPerSecond: Number.POSITIVE_INFINITY }),
  };
  const known = options.applicationIds ?? [];
  const gate: Gate = {
    isBotToken: createTokenCheck(tokens),
    applications: createApplicationIds({
      tokens,
      known,
      lookUp: (token) => lookUpApplication(rest, token),
      onRefused: (index) => options.onTokenRefused?.(index + 1),
    }),
  };
  const server: Server = createServer((req, res) => {
    void forward(queues, gate, req, res, options);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolve());
  });
  // Learn the bots' applications now rather than on their first follow-up; with the ids configured,
  // only when a request names another one.
  if (known.length === 0) void gate.applications.learn();
  const address = server.address();
  // A TCP server listening always has an AddressInfo (a string is a pipe's, null before listening).
  if (address === null || typeof address === 'string') throw new Error('the REST proxy has no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/api`,
    async close() {
      for (const queue of [queues.bound, queues.interactions]) {
        queue.clearHashSweeper();
        queue.clearHandlerSweeper();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
