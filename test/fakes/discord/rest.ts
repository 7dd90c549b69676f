/**
 * The REST half of the fake Discord (`/api/v10/...`). Every request is recorded; every body is checked
 * against Discord's OpenAPI schema and documented limits; what real Discord would refuse is refused with
 * the same status and JSON error code, and recorded as a violation.
 *
 * This file owns what every route shares: the route table, the checks handlers call (channel,
 * permissions, schema and limits, mentions), and dispatch (authorization, injected faults, rate-limit
 * buckets, errors to Discord's JSON). The routes themselves live by resource in `routes/`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PermissionFlagsBits } from 'discord.js';
import { DM_APP_PERMISSIONS, botChannelPermissions, type SeedChannel, type World } from './payloads.js';
import {
  DiscordError,
  invalidForm,
  isRecord,
  type Handler,
  type Params,
  type Reply,
  type RestContext,
  type RestRequest,
} from './rest-context.js';
import { createGlobalLimit } from './global-limit.js';
import { registerApplicationRoutes } from './routes/applications.js';
import { registerChannelRoutes } from './routes/channels.js';
import { registerCommandRoutes } from './routes/commands.js';
import { registerGatewayRoutes } from './routes/gateway-bot.js';
import { registerGuildRoutes } from './routes/guilds.js';
import { registerInteractionRoutes } from './routes/interactions.js';
import { registerMessageRoutes } from './routes/messages.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import type { FakeState, InjectRule } from './state.js';
import type { RecordedFile, RecordedRequest } from './types.js';
import {
  editLimitIssues,
  messageLimitIssues,
  schemaIssues,
  type EditedMessage,
  type SchemaName,
} from './validate.js';

const API_PREFIX = '/api/v10';
const RATE_LIMIT = 50;
const RATE_WINDOW_MS = 1000;

interface Route {
  readonly method: string;
  readonly template: string;
  readonly parts: string[];
  /** Interaction callbacks and webhook-token routes are called without Authorization. */
  readonly auth: boolean;
  readonly handler: Handler;
}

/** allowed_mentions that can ping nobody: `{ parse: [] }` with no users/roles and no replied_user. */
function isSilentMentions(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const parse = value['parse'];
  const users = value['users'];
  const roles = value['roles'];
  return (
    Array.isArray(parse) &&
    parse.length === 0 &&
    (users == null || (Array.isArray(users) && users.length === 0)) &&
    (roles == null || (Array.isArray(roles) && roles.length === 0)) &&
    value['replied_user'] !== true
  );
}

const MENTION_PATTERN = /<@[!&]?\d+>|@everyone|@here/;

export interface FakeRest {
  handle(request: IncomingMessage, response: ServerResponse): void;
}

export interface FakeRestOptions {
  /** Discord's global limit of 50 requests a second off the interaction routes (global-limit.ts); default on. */
  readonly globalLimit?: boolean;
}

export function createFakeRest(
  state: FakeState,
  gatewayUrl: () => string,
  options: FakeRestOptions = {},
): FakeRest {
  const routes: Route[] = [];
  const globalLimit = options.globalLimit === false ? undefined : createGlobalLimit(state);
  const buckets = new Map<string, { count: number; resetAt: number }>();
  const world = state.world;
  const worlds = state.worlds;
  const foreignWorlds = state.foreignWorlds;

  const add = (method: string, template: string, handler: Handler, auth = true): void => {
    routes.push({ method, template, parts: template.split('/').filter(Boolean), auth, handler });
  };

  // ---------------------------------------------------------------------------------------------------
  // Checks the route handlers call.

  function channelOf(id: string): { world: World; channel: SeedChannel } | undefined {
    for (const w of worlds) {
      const channel = w.channels.get(id);
      if (channel !== undefined) return { world: w, channel };
    }
    return undefined;
  }

  const worldOfGuild = (guildId: string | undefined): World | undefined =>
    worlds.find((w) => w.guildId === guildId);

  function foreignChannelOf(id: string): { world: World; channel: SeedChannel } | undefined {
    for (const w of foreignWorlds) {
      const channel = w.channels.get(id);
      if (channel !== undefined) return { world: w, channel };
    }
    return undefined;
  }

  const foreignWorldOfGuild = (guildId: string | undefined): World | undefined =>
    foreignWorlds.find((w) => w.guildId === guildId);

  const messageWorldOf = (channelId: string): World =>
    (channelOf(channelId) ?? foreignChannelOf(channelId))?.world ?? world;

  const guildIdOfChannel = (channelId: string): string | undefined =>
    (channelOf(channelId) ?? foreignChannelOf(channelId))?.world.guildId;

  const channelExists = (id: string): boolean =>
    id === world.dmChannelId ||
    channelOf(id) !== undefined ||
    foreignChannelOf(id) !== undefined ||
    state.privateChannels.has(id);

  function botPermissionsIn(channelId: string): bigint {
    if (channelId === world.dmChannelId) return DM_APP_PERMISSIONS;
    const found = channelOf(channelId);
    // A server the bot is not in (or was removed from), a DM between users: it holds nothing there.
    if (found === undefined || state.removedFrom.has(found.world.guildId)) return 0n;
    return botChannelPermissions(found.world, channelId);
  }

  function requireChannel(channelId: string): void {
    if (!channelExists(channelId)) throw new DiscordError(404, 10003, 'Unknown Channel', 'unknown-resource');
  }

  function requireAccess(channelId: string): void {
    if ((botPermissionsIn(channelId) & PermissionFlagsBits.ViewChannel) === 0n) {
      throw new DiscordError(403, 50001, 'Missing Access', 'missing-permissions');
    }
  }

  function requirePermission(channelId: string, ...bits: bigint[]): void {
    requireAccess(channelId);
    const have = botPermissionsIn(channelId);
    for (const bit of bits) {
      if ((have & bit) !== bit)
        throw new DiscordError(403, 50013, 'Missing Permissions', 'missing-permissions');
    }
  }

  function validate(name: SchemaName, body: unknown, limitsOf: unknown, editing?: EditedMessage): void {
    const issues = schemaIssues(name, body);
    if (issues.length > 0) throw invalidForm(issues);
    const limits = editing === undefined ? messageLimitIssues(limitsOf) : editLimitIssues(editing, limitsOf);
    if (limits.length > 0) {
      const error = invalidForm(limits);
      throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
    }
  }

  function recordMentions(
    req: RestRequest,
    route: string,
    body: unknown,
    messageId: string | undefined,
  ): void {
    if (!isRecord(body)) return;
    const allowed = body['allowed_mentions'];
    if (isSilentMentions(allowed)) return;
    const content = body['content'];
    state.mentionRisks.push({
      method: req.method,
      route,
      messageId,
      allowedMentions: allowed,
      contentHasMention: typeof content === 'string' && MENTION_PATTERN.test(content),
      at: state.now(),
    });
  }

  const rest: RestContext = {
    state,
    world,
    worlds,
    channelOf,
    worldOfGuild,
    foreignChannelOf,
    foreignWorldOfGuild,
    messageWorldOf,
    guildIdOfChannel,
    gatewayUrl,
    add,
    botPermissionsIn,
    requireChannel,
    requireAccess,
    requirePermission,
    validate,
    recordMentions,
  };
  // Registration order is match order (see RestContext.add).
  registerGatewayRoutes(rest);
  registerUserRoutes(rest);
  registerApplicationRoutes(rest);
  registerCommandRoutes(rest);
  registerInteractionRoutes(rest);
  registerWebhookRoutes(rest);
  registerChannelRoutes(rest);
  registerMessageRoutes(rest);
  registerGuildRoutes(rest);

  // ---------------------------------------------------------------------------------------------------
  // Dispatch.

  function match(
    method: string,
    segments: string[],
  ): { route: Route; params: Params } | 'method' | undefined {
    let pathMatched = false;
    for (const route of routes) {
      if (route.parts.length !== segments.length) continue;
      const params: Params = {};
      let ok = true;
      for (let i = 0; i < route.parts.length; i++) {
        const part = route.parts[i] ?? '';
        const segment = segments[i] ?? '';
        if (part.startsWith(':')) params[part.slice(1)] = segment;
        else if (part !== segment) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    return pathMatched ? 'method' : undefined;
  }

  /** Discord's bucket headers; `over` when this request went past the bucket (discord.js never should). */
  function rateLimit(route: string, majorId: string): { headers: Record<string, string>; over: boolean } {
    const key = `${route}:${majorId}`;
    const now = state.now();
    let bucket = buckets.get(key);
    if (bucket === undefined || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + RATE_WINDOW_MS };
      buckets.set(key, bucket);
    }
    bucket.count += 1;
    const resetAfter = Math.max(0, bucket.resetAt - now) / 1000;
    return {
      over: bucket.count > RATE_LIMIT,
      headers: {
        'X-RateLimit-Limit': String(RATE_LIMIT),
        'X-RateLimit-Remaining': String(Math.max(0, RATE_LIMIT - bucket.count)),
        'X-RateLimit-Reset': (bucket.resetAt / 1000).toFixed(3),
        'X-RateLimit-Reset-After': resetAfter.toFixed(3),
        'X-RateLimit-Bucket': Buffer.from(route).toString('base64url').slice(0, 16),
      },
    };
  }

  function injected(req: RestRequest, template: string): Reply | undefined {
    const rule = state.injections.find(
      (r) =>
        (r.times ?? 1) > 0 &&
        (r.method === undefined || r.method.toUpperCase() === req.method) &&
        (typeof r.route === 'string'
          ? r.route === template || r.route === req.path
          : r.route.test(template) || r.route.test(req.path)),
    );
    if (rule === undefined) return undefined;
    rule.times = (rule.times ?? 1) - 1;
    return injectedReply(rule);
  }

  /**
   * Synchronous on purpose: a handler wakes waiters (finalReply ...) and their continuations must see the
   * request already recorded with its route and status.
   */
  function run(req: RestRequest, recorded: RecordedRequest): Reply {
    const { reply, template } = dispatch(req);
    recorded.route = template;
    recorded.status = reply.status;
    state.notify();
    return reply;
  }

  function dispatch(req: RestRequest): { reply: Reply; template: string } {
    const found = match(req.method, req.segments);
    if (found === undefined || found === 'method') {
      const template = req.path;
      const status = found === 'method' ? 405 : 404;
      state.violation({
        kind: 'unknown-route',
        message: `${req.method} ${req.path} is not a Discord route this fake knows`,
        method: req.method,
        route: template,
        code: 0,
      });
      return {
        template,
        reply: {
          status,
          body: { message: status === 405 ? '405: Method Not Allowed' : '404: Not Found', code: 0 },
        },
      };
    }
    const { route, params } = found;
    if (route.auth) {
      const ok = req.authHeader === `Bot ${state.token}`;
      if (!ok) {
        state.violation({
          kind: 'unauthorized',
          message: `${req.method} ${route.template} without a valid bot Authorization`,
          method: req.method,
          route: route.template,
          code: 0,
        });
        return {
          template: route.template,
          reply: { status: 401, body: { message: '401: Unauthorized', code: 0 } },
        };
      }
    }
    const injection = injected(req, route.template);
    if (injection !== undefined) return { template: route.template, reply: injection };
    const global = globalLimit?.check(req.method, route.template, params, req.authHeader);
    if (global !== undefined) return { template: route.template, reply: global };
    const majorId = params['channel'] ?? params['guild'] ?? params['token'] ?? '';
    const { headers, over } = rateLimit(`${req.method} ${route.template}`, majorId);
    if (over) {
      const retryAfter = Number(headers['X-RateLimit-Reset-After']);
      state.violation({
        kind: 'limit',
        message: `${req.method} ${route.template} exceeded its rate limit bucket`,
        method: req.method,
        route: route.template,
        code: 0,
      });
      return {
        template: route.template,
        reply: injectedReply({ route: route.template, status: 429, retryAfter }),
      };
    }
    try {
      const reply = route.handler(req, params);
      return { template: route.template, reply: { ...reply, headers: { ...headers, ...reply.headers } } };
    } catch (error) {
      if (!(error instanceof DiscordError)) throw error;
      if (error.kind !== null) {
        state.violation({
          kind: error.kind,
          message: `${req.method} ${route.template}: ${error.code} ${error.message}`,
          method: req.method,
          route: route.template,
          code: error.code,
          details: error.errors,
        });
      }
      const body: Record<string, unknown> = { message: error.message, code: error.code };
      if (error.errors !== undefined) body['errors'] = error.errors;
      return { template: route.template, reply: { status: error.status, body, headers } };
    }
  }

  return {
    handle(request, response) {
      void (async () => {
        const at = state.now();
        const url = new URL(request.url ?? '/', 'http://localhost');
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks);

        if (url.pathname.startsWith('/cdn/')) {
          const file = state.files.get(url.pathname);
          if (file === undefined) {
            response.writeHead(404).end();
          } else if (file.fault === 'reset') {
            request.socket.destroy();
          } else if (file.fault === 'stall') {
            response.writeHead(200, { 'Content-Type': file.contentType });
            response.write(file.data.subarray(0, 1));
          } else {
            response.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.data.length });
            response.end(file.data);
          }
          return;
        }
        if (!url.pathname.startsWith(`${API_PREFIX}/`)) {
          state.violation({
            kind: 'unknown-route',
            message: `request outside ${API_PREFIX}: ${url.pathname}`,
          });
          send(response, { status: 404, body: { message: '404: Not Found', code: 0 } });
          return;
        }
        const path = url.pathname.slice(API_PREFIX.length);
        const segments = path
          .split('/')
          .filter(Boolean)
          .map((s) => decodeURIComponent(s));
        const decodedPath = `/${segments.join('/')}`;
        const contentType = request.headers['content-type'] ?? '';
        let body: unknown;
        const files: RestRequest['files'] = [];
        let parseError = false;
        try {
          if (contentType.startsWith('multipart/form-data')) {
            const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
            for (const [field, value] of form.entries()) {
              if (typeof value === 'string') {
                if (field === 'payload_json') body = JSON.parse(value);
              } else {
                files.push({
                  field,
                  filename: value.name,
                  contentType: value.type || 'application/octet-stream',
                  data: Buffer.from(await value.arrayBuffer()),
                });
              }
            }
          } else if (raw.length > 0) {
            body = JSON.parse(raw.toString('utf8'));
          }
        } catch {
          parseError = true;
        }
        const authHeader = request.headers.authorization;
        const req: RestRequest = {
          method: (request.method ?? 'GET').toUpperCase(),
          path: decodedPath,
          segments,
          query: url.searchParams,
          body,
          files,
          authorized: authHeader === `Bot ${state.token}`,
          authHeader,
        };
        const recorded: RecordedRequest = {
          method: req.method,
          route: decodedPath,
          path: decodedPath,
          query: Object.fromEntries(url.searchParams),
          body,
          files: files.map(({ field, filename, contentType: type, data }): RecordedFile => ({
            field,
            filename,
            contentType: type,
            size: data.length,
          })),
          authorized: req.authorized,
          status: 0,
          at,
        };
        state.requests.push(recorded);
        if (parseError) {
          state.violation({
            kind: 'schema',
            message: `${req.method} ${decodedPath}: body is not valid JSON`,
          });
          recorded.status = 400;
          send(response, { status: 400, body: { message: '400: Bad Request', code: 50109 } });
          return;
        }
        send(response, run(req, recorded));
      })().catch((error: unknown) => {
        state.violation({ kind: 'schema', message: `fake Discord internal error: ${String(error)}` });
        if (!response.headersSent)
          send(response, { status: 500, body: { message: '500: Internal Server Error', code: 0 } });
      });
    },
  };
}

function injectedReply(rule: InjectRule): Reply {
  if (rule.status === 429) {
    const retryAfter = rule.retryAfter ?? 1;
    const global = rule.global === true;
    return {
      status: 429,
      body: rule.body ?? { message: 'You are being rate limited.', retry_after: retryAfter, global, code: 0 },
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Scope': global ? 'global' : 'user',
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': String(retryAfter),
        ...(global ? { 'X-RateLimit-Global': 'true' } : {}),
      },
    };
  }
  const defaultMessage =
    rule.status >= 500 ? `${rule.status}: Internal Server Error` : `${rule.status}: Error`;
  return { status: rule.status, body: rule.body ?? { message: defaultMessage, code: 0 } };
}

function send(response: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  const json = JSON.stringify(reply.body);
  headers['Content-Type'] = 'application/json';
  response.writeHead(reply.status, headers).end(json);
}
