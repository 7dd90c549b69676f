/**
 * The one function that talks HTTP to a Philomena site. It owns, per attempt: the circuit breaker check,
 * a budget slot (held until the attempt has settled, see budget.ts), a timeout with its own AbortController; and across attempts: retries with exponential
 * backoff and full jitter, `Retry-After`, and an overall deadline.
 *
 * Retried (when the request is `idempotent`): network errors, timeouts, 5xx, 429 and 501. The client marks
 * every GET idempotent, and reverse search too (a POST only because it carries a file or a URL: it changes
 * nothing). POST /images is never retried. A wait longer than what is left of the deadline is not slept:
 * the call fails at once (`RateLimitedError` carrying the wait for 429/501).
 *
 * It returns every answer below 500 except 429 as-is (the client maps 4xx to errors and parses 2xx); it
 * throws for 429, 501, 5xx, timeouts and resets once retries are spent.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import type { Logger } from 'pino';
import {
  InvalidResponseError,
  RateLimitedError,
  SiteUnavailableError,
  type PhilomenaError,
} from '../errors.js';
import type { CircuitBreaker } from './breaker.js';
import type { RequestBudget } from './budget.js';

export interface TransportRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query, e.g. `/api/v1/json/images/1?filter_id=56027&key=...`. */
  readonly path: string;
  /** A JSON string (sent as application/json) or a multipart form. */
  readonly body?: string | (() => FormData);
  readonly idempotent: boolean;
  readonly signal?: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  readonly attempts: number;
}

export interface TransportOptions {
  /** Site id, for errors and logs. */
  readonly site: string;
  /** e.g. `https://derpibooru.org`. */
  readonly baseUrl: string;
  /** Default: a keep-alive undici Agent owned by the transport. */
  readonly dispatcher?: Dispatcher;
  readonly userAgent?: string;
  /** Per attempt, headers and body included. Default 10 s. */
  readonly attemptTimeoutMs?: number;
  /** For the whole call: budget waits, attempts and backoff. Default 30 s. */
  readonly deadlineMs?: number;
  /** Attempts of an idempotent request, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Backoff before retry n (1-based) is random() * min(maxDelayMs, baseDelayMs * 2^(n-1)). Default 500 ms. */
  readonly baseDelayMs?: number;
  /** Default 8 s. */
  readonly maxDelayMs?: number;
  /** Least wait after an anti-bot 501. Default 5 s. */
  readonly antiBotDelayMs?: number;
  /** Bodies larger than this are refused. Default 8 MiB. */
  readonly maxBodyBytes?: number;
  readonly budget?: RequestBudget;
  readonly breaker?: CircuitBreaker;
  /** Scrubs secrets from paths before they reach errors or logs. */
  readonly redact: (text: string) => string;
  readonly logger?: Logger;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Closes the dispatcher if the transport created it. */
  close(): Promise<void>;
}

const PROJECT = 'philomena-bot';
const PROJECT_DESCRIPTION = 'Discord bot for Philomena image boards';
let cachedUserAgent: string | undefined;

/** The project's version from its package.json, found upwards from this file (src/ or dist/src/). */
function projectVersion(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (typeof parsed === 'object' && parsed !== null) {
        const { name, version } = parsed as { name?: unknown; version?: unknown };
        if (name === PROJECT && typeof version === 'string') return version;
      }
    } catch {
      // No package.json here (or not readable): look one level up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/**
 * `philomena-bot/<version> (Discord bot for Philomena image boards)`: names the project and what it is,
 * so a site's operators can tell who is calling. Read once, on first use (no work at import time).
 */
export function defaultUserAgent(): string {
  if (cachedUserAgent === undefined) {
    const version = projectVersion();
    cachedUserAgent = `${PROJECT}${version === undefined ? '' : `/${version}`} (${PROJECT_DESCRIPTION})`;
  }
  return cachedUserAgent;
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or junk. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** A stand-in for `error` that keeps only its redacted message, its name and a string `code`: no cause chain. */
export function scrubError(error: unknown, redact: (text: string) => string): Error {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  // A fresh Error: its stack is built from the redacted message, and it has no cause.
  const scrubbed = new Error(redact(message));
  if (error instanceof Error && error.name !== 'Error') {
    Object.defineProperty(scrubbed, 'name', { value: error.name, enumerable: false, configurable: true });
  }
  return Object.assign(scrubbed, typeof code === 'string' ? { code } : {});
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Outcome =
  | { readonly kind: 'response'; readonly response: TransportResponse }
  | {
      readonly kind: 'retryable';
      readonly error: PhilomenaError;
      /** The wait the site asked for, or our floor (501). */
      readonly retryAfterMs?: number;
    };

class TimeoutSignal extends Error {}

export function createTransport(options: TransportOptions): Transport {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher: Dispatcher =
    options.dispatcher ??
    new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
  const userAgent = options.userAgent ?? defaultUserAgent();
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const deadlineMs = options.deadlineMs ?? 30_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8_000;
  const antiBotDelayMs = options.antiBotDelayMs ?? 5_000;
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? (() => performance.now());
  const site = options.site;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function readBody(
    body: Dispatcher.ResponseData['body'],
    path: string,
    status: number,
  ): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBodyBytes) {
        body.destroy();
        throw new InvalidResponseError(`${site} sent a body over ${maxBodyBytes} bytes`, '(body)', {
          site,
          path,
          status,
        });
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function attempt(
    req: TransportRequest,
    path: string,
    timeoutMs: number,
    attemptNo: number,
  ): Promise<Outcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), timeoutMs);
    const onCallerAbort = (): void => controller.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const started = now();
    const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
    let body: string | FormData | undefined;
    if (typeof req.body === 'string') {
      headers['content-type'] = 'application/json';
      body = req.body;
    } else if (req.body) {
      body = req.body();
    }
    try {
      const res = await request(`${base}${req.path}`, {
        method: req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
        dispatcher,
      });
      const text = await readBody(res.body, path, res.statusCode);
      const response: TransportResponse = {
        status: res.statusCode,
        headers: res.headers,
        body: text,
        attempts: attemptNo,
      };
      options.logger?.debug(
        {
          site,
          method: req.method,
          path,
          status: res.statusCode,
          ms: Math.round(now() - started),
          attempt: attemptNo,
        },
        'philomena request',
      );
      return classify(response, path);
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (error instanceof InvalidResponseError) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
        // Our own pool was shut down (the bot is stopping): not the site's fault, and nothing to retry.
        throw new SiteUnavailableError(`${site}: the connection pool is closed`, 'network', {
          site,
          path,
          cause: scrub(error),
        });
      }
      const timedOut = controller.signal.reason instanceof TimeoutSignal;
      options.logger?.debug(
        {
          site,
          method: req.method,
          path,
          ms: Math.round(now() - started),
          attempt: attemptNo,
          error: timedOut ? 'timeout' : typeof code === 'string' ? code : 'network',
        },
        'philomena request failed',
      );
      const reason = timedOut ? 'timeout' : 'network';
      const message = timedOut
        ? `${site} did not answer within ${timeoutMs} ms`
        : `${site} could not be reached (${typeof code === 'string' ? code : 'network error'})`;
      return {
        kind: 'retryable',
        error: new SiteUnavailableError(message, reason, {
          site,
          path,
          cause: timedOut ? undefined : scrub(error),
        }),
      };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Errors from undici can quote the URL (and with it the key) in their message or anywhere down their
   * `cause` chain: keep only a scrubbed message and the code, and drop the chain.
   */
  function scrub(error: unknown): Error {
    return scrubError(error, options.redact);
  }

  function classify(response: TransportResponse, path: string): Outcome {
    const { status } = response;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
      // Without a Retry-After, tell the caller a short wait rather than "now".
      const wait = retryAfterMs ?? 1_000;
      return {
        kind: 'retryable',
        error: new RateLimitedError(`${site} is rate limiting us (HTTP 429)`, wait, { site, path, status }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    if (status === 501) {
      // The anti-bot layer answers 501 with HTML: back off at least antiBotDelayMs, longer if it says so.
      const wait = Math.max(antiBotDelayMs, parseRetryAfter(response.headers['retry-after']) ?? 0);
      return {
        kind: 'retryable',
        error: new RateLimitedError(`${site} is busy (HTTP 501 from its anti-bot layer)`, wait, {
          site,
          path,
          status,
        }),
        retryAfterMs: wait,
      };
    }
    if (status >= 500) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
      return {
        kind: 'retryable',
        error: new SiteUnavailableError(`${site} failed (HTTP ${status})`, 'server-error', {
          site,
          path,
          status,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    return { kind: 'response', response };
  }

  async function send(req: TransportRequest): Promise<TransportResponse> {
    const path = options.redact(req.path);
    const deadline = now() + deadlineMs;
    const attempts = req.idempotent ? maxAttempts : 1;
    let last: Extract<Outcome, { kind: 'retryable' }> | undefined;
    for (let attemptNo = 1; attemptNo <= attempts; attemptNo += 1) {
      if (req.signal?.aborted) throw req.signal.reason;
      const ticket = options.breaker?.enter();
      let outcome: Outcome;
      try {
        const left = deadline - now();
        const slot = await options.budget?.acquire(req.path, {
          timeoutMs: left,
          ...(req.signal ? { signal: req.signal } : {}),
        });
        try {
          const timeoutMs = Math.max(1, Math.min(attemptTimeoutMs, deadline - now()));
          outcome = await attempt(req, path, timeoutMs, attemptNo);
        } finally {
          // The attempt has settled: its answer is read or its socket is gone (undici settles a queued
          // request only once it has been dispatched and aborted), so nothing more of it reaches the site.
          slot?.release();
        }
      } catch (error) {
        ticket?.release();
        throw error;
      }
      if (outcome.kind === 'response') {
        ticket?.success();
        return outcome.response;
      }
      ticket?.failure(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs });
      last = outcome;
      if (attemptNo === attempts) break;
      const backoff = random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attemptNo - 1));
      const wait = Math.max(backoff, outcome.retryAfterMs ?? 0);
      if (wait > deadline - now()) return giveUp(outcome, wait);
      await sleep(wait, req.signal);
    }
    if (!last) throw new Error('unreachable: no attempt was made');
    return giveUp(last, last.retryAfterMs);
  }

  function giveUp(outcome: Extract<Outcome, { kind: 'retryable' }>, wait: number | undefined): never {
    const { error } = outcome;
    if (error instanceof RateLimitedError && wait !== undefined && wait > error.retryAfterMs) {
      throw new RateLimitedError(error.message, wait, {
        site: error.site,
        ...(error.path === undefined ? {} : { path: error.path }),
        ...(error.status === undefined ? {} : { status: error.status }),
      });
    }
    throw error;
  }

  return {
    send,
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  };
}
