/**
 * The local Philomena: a node:http server on 127.0.0.1 that answers the JSON API like Derpibooru 1.2 (or
 * upstream master, `errorStyle: 'upstream'`) does, serves its own image files under `/img/...`, records
 * every request (with the key it read) and lets a test inject faults; its accounts (accounts.ts) are what
 * keys open. Behaviour follows docs/board-behaviour.md.
 *
 * This file owns startup, the board every route shares (board-context.ts), reading requests, the router
 * and faults; the endpoints live by resource in `routes/`.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  empty,
  json,
  type Board,
  type Handler,
  type HttpAnswer,
  type RequestContext,
} from './board-context.js';
import {
  accountOfKey,
  addAccount,
  createAccountBook,
  listsOf,
  revokeKey,
  rotateKey,
  updateAccount,
  type AccountState,
  type CreatedAccount,
  type NewAccount,
} from './accounts.js';
import { createDataset } from './data.js';
import { createAntiBotLayer, type AntiBotLayer } from './anti-bot.js';
import { answerFault, createFaultTable } from './faults.js';
import type { FaultRule } from './faults.js';
import { parseMultipart, type UploadedFile } from './multipart.js';
import { indexTags } from './render.js';
import type { ErrorStyle } from './render.js';
import { registerCommentAndPostRoutes } from './routes/comments-posts.js';
import { serveSiteFile } from './routes/files.js';
import { registerFilterRoutes } from './routes/filters.js';
import { registerForumRoutes } from './routes/forums.js';
import { registerGalleryRoutes } from './routes/galleries.js';
import { registerImageRoutes } from './routes/images.js';
import { registerOembedRoutes } from './routes/oembed.js';
import { registerProfileRoutes } from './routes/profiles.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerTagRoutes } from './routes/tags.js';
import { addImage, updateImage, type ImagePatch, type NewImage } from './runtime-images.js';
import { addComment, addPost, type NewComment, type NewPost } from './runtime-words.js';
import { DEFAULT_UPLOAD_RULES, type UploadRules } from './upload-rules.js';

export interface FakePhilomenaOptions {
  port?: number;
  errorStyle?: ErrorStyle;
  latencyMs?: number;
  /** What POST /images accepts (upload-rules.ts); Furbooru wants `minimumTags: 5`. */
  uploads?: Partial<UploadRules>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The `key` the board read (query string, or a JSON or form body), so tests can see whose went where. */
  key: string | undefined;
  at: number;
}

export interface FakePhilomena {
  readonly url: string;
  readonly requests: RecordedRequest[];
  inject(rule: FaultRule): void;
  clearFaults(): void;
  /**
   * The anti-bot layer (anti-bot.ts): after an `anti-bot` fault's 501, a request within 5 s starts the
   * 15-minute block of empty 500s that every request restarts. Tests scale its timings and move its clock.
   */
  readonly antiBot: AntiBotLayer;
  setErrorStyle(style: ErrorStyle): void;
  setLatency(ms: number): void;
  setFeatured(id: number | null): void;
  /**
   * Adds an image as if just uploaded and approved: the next id above every image, `created_at` and
   * `first_seen_at` now (or `spec.at`), thumbnails generated unless `thumbnailsGenerated: false`. It is
   * searchable, answers at /images/:id and its files are served (once thumbnails exist). Returns its id.
   */
  addImage(spec: NewImage): number;
  /** Adds a comment or a forum post (runtime-words.ts); returns its id. */
  addComment(spec: NewComment): number;
  addPost(spec: NewPost): number;
  /** Changes an image (thumbnails generated, re-tagging, description); throws for an unknown id. */
  updateImage(id: number, patch: ImagePatch): void;
  /**
   * A new account on the board, with its own filters and lists (accounts.ts); returns its id, a key
   * like a real one and the ids of its filters. With the key the board applies the account's current
   * filter, `/filters/user` lists its filters, `my:` reads its lists, and it may upload.
   */
  addAccount(spec: NewAccount): CreatedAccount;
  /** Adds to the account's lists, replaces its watched tags, sets its current filter or ban. */
  updateAccount(key: string, patch: AccountState): void;
  /** The key stops working (the board then answers as for a wrong key); the account stays. */
  revokeKey(key: string): void;
  /** The account's owner resets its key: the old one stops working, the new one is returned. */
  rotateKey(key: string): string;
  /** Changes what POST /images accepts: minimum tags, size limit, wording of refusals. */
  setUploadRules(rules: Partial<UploadRules>): void;
  /** Back to the data set as started: runtime-added images and uploads go, faults and requests too. */
  reset(): void;
  close(): Promise<void>;
}

const API = '/api/v1/json';
const NO_CACHE = 'no-store, no-cache';
const MAX_BODY = 10 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------
// Body parsing

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

function flattenJson(value: unknown, prefix: string, out: [string, string][]): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenJson(v, prefix === '' ? k : `${prefix}[${k}]`, out);
    return;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push([prefix, String(value)]);
  }
}

// ---------------------------------------------------------------------------------------------------

export async function startFakePhilomena(options: FakePhilomenaOptions = {}): Promise<FakePhilomena> {
  const initialStyle: ErrorStyle = options.errorStyle ?? 'derpibooru';
  const initialLatency = options.latencyMs ?? 0;
  let latency = initialLatency;
  const faults = createFaultTable();
  const antiBot = createAntiBotLayer();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  let closed = false;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.set(timer, resolve);
    });

  const routes: [string, RegExp, Handler][] = [];
  const data = createDataset();
  const initialUploads: UploadRules = { ...DEFAULT_UPLOAD_RULES, ...options.uploads };
  const board: Board = {
    data,
    accounts: createAccountBook(data.users),
    uploads: { ...initialUploads },
    tagIndex: indexTags(data),
    style: initialStyle,
    base: '',
    add: (method, pattern, handler) => {
      routes.push([method, pattern, handler]);
    },
    renderContext: () => ({ base: board.base, style: board.style, tagIdsByName: board.tagIndex.idsByName }),
    queryContext: (ctx) => ({
      user: ctx.account === undefined ? undefined : listsOf(ctx.account),
      style: board.style,
      now: Date.now(),
    }),
    notFound: () => (board.style === 'derpibooru' ? empty(404) : json(404, { error: 'Not found' })),
    badRequest: () => json(400, { error: 'Bad Request' }),
  };
  // No two modules' patterns match the same path, so only the order inside a module matters.
  registerCommentAndPostRoutes(board);
  registerImageRoutes(board);
  registerTagRoutes(board);
  registerProfileRoutes(board);
  registerFilterRoutes(board);
  registerOembedRoutes(board);
  registerGalleryRoutes(board);
  registerSearchRoutes(board);
  registerForumRoutes(board);

  // ---- dispatch ----------------------------------------------------------------------------------

  async function route(ctx: RequestContext): Promise<HttpAnswer> {
    const path = ctx.path;
    if (path.startsWith(`${API}/`) || path === API) {
      const sub = path.slice(API.length);
      for (const [method, pattern, handler] of routes) {
        pattern.lastIndex = 0;
        const m = pattern.exec(sub);
        if (m && method === ctx.method) return handler(ctx, m);
      }
      return board.notFound();
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const file = serveSiteFile(board, path);
      if (file) return file;
    }
    // The pre-2020 API is gone.
    if (path === '/search.json' || /^\/images\/\d+\.json$/.test(path)) return board.badRequest();
    return board.notFound();
  }

  function contextOf(req: IncomingMessage, url: URL, body: Buffer): RequestContext {
    const params = new URLSearchParams(url.searchParams);
    const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
    let files = new Map<string, UploadedFile>();
    let jsonBody: unknown;
    const fromBody: [string, string][] = [];
    if (req.method === 'POST' && body.length > 0) {
      if (contentType.startsWith('application/json')) {
        try {
          jsonBody = JSON.parse(body.toString('utf8'));
          flattenJson(jsonBody, '', fromBody);
        } catch {
          jsonBody = undefined;
        }
      } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
        fromBody.push(...new URLSearchParams(body.toString('utf8')));
      } else if (contentType.startsWith('multipart/form-data')) {
        const parsed = parseMultipart(body, String(req.headers['content-type'] ?? ''));
        fromBody.push(...parsed.fields);
        files = parsed.files;
      }
    }
    // Plug merges the body's params over the query's: a field sent both ways takes the body's value.
    for (const name of new Set(fromBody.map(([k]) => k))) params.delete(name);
    for (const [k, v] of fromBody) params.append(k, v);
    // An unknown or revoked key is no error: the request just runs anonymously.
    const account = accountOfKey(board, params.get('key'));
    return {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      query: url.searchParams,
      files,
      user: account?.user,
      account,
      contentType,
      jsonBody,
    };
  }

  function write(res: ServerResponse, answer: HttpAnswer, head: boolean): void {
    if (res.destroyed || res.headersSent) return;
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    res.writeHead(answer.status, {
      'content-type': answer.contentType,
      'content-length': String(body.length),
      'cache-control': NO_CACHE,
      ...answer.headers,
    });
    res.end(head ? undefined : body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const headers: IncomingHttpHeaders = { ...req.headers };
    const ctx = contextOf(req, url, body);
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: new URLSearchParams(url.searchParams),
      headers,
      body,
      key: ctx.params.get('key') ?? undefined,
      at: Date.now(),
    });
    // The block answers before anything else, as the real edge does (and each request restarts it).
    if (antiBot.arrive(url.pathname)) {
      if (!closed) answerFault({ kind: 'empty-500' }, req, res);
      return;
    }
    const fault = faults.take(url.pathname);
    if (fault?.kind === 'anti-bot') antiBot.challenged();
    if (latency > 0) await sleep(latency);
    if (fault) {
      if (fault.kind === 'latency') await sleep(fault.ms);
      else if (closed) return;
      else if (fault.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      } else {
        answerFault(fault, req, res);
        return;
      }
    }
    if (closed) return;
    let answer: HttpAnswer;
    try {
      answer = await route(ctx);
    } catch {
      answer = json(500, { error: 'Internal Error' });
    }
    write(res, answer, req.method === 'HEAD');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) write(res, json(500, { error: 'Internal Error' }), false);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  board.base = `http://127.0.0.1:${address.port}`;

  return {
    url: board.base,
    requests,
    inject: (rule) => faults.inject(rule),
    clearFaults: () => faults.clear(),
    antiBot,
    setErrorStyle: (next) => {
      board.style = next;
    },
    setLatency: (ms) => {
      latency = Math.max(0, ms);
    },
    setFeatured: (id) => {
      board.data.featuredId = id;
    },
    addImage: (spec) => addImage(board, spec),
    addComment: (spec) => addComment(board, spec),
    addPost: (spec) => addPost(board, spec),
    addAccount: (spec) => addAccount(board, spec),
    updateAccount: (key, patch) => {
      updateAccount(board, key, patch);
    },
    revokeKey: (key) => {
      revokeKey(board, key);
    },
    rotateKey: (key) => rotateKey(board, key),
    setUploadRules: (rules) => {
      board.uploads = { ...board.uploads, ...rules };
    },
    updateImage: (id, patch) => {
      updateImage(board, id, patch);
    },
    reset: () => {
      requests.length = 0;
      faults.clear();
      antiBot.reset();
      latency = initialLatency;
      board.style = initialStyle;
      board.data = createDataset();
      board.accounts = createAccountBook(board.data.users);
      board.uploads = { ...initialUploads };
      board.tagIndex = indexTags(board.data);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      // Waiting requests wake up, see `closed` and give up; their sockets are destroyed below.
      for (const [timer, wake] of timers) {
        clearTimeout(timer);
        wake();
      }
      timers.clear();
      for (const res of hanging) res.destroy();
      hanging.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await done;
    },
  };
}
