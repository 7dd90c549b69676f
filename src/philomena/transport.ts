/**
 * The one function that talks HTTP to a Philomena site. It owns, per attempt: the circuit breaker check,
 * a budget slot (held until the attempt has settled, see budget.ts), a timeout (`AbortSignal.timeout`, joined
 * with the caller's signal by `AbortSignal.any`); and across attempts: retries with exponential backoff and
 * full jitter, `Retry-After`, and an overall deadline.
 *
 * Retried (when the request is `idempotent` and not `retry: false`): network errors, timeouts, 5xx, 429 and
 * 501. The client marks every GET idempotent, and reverse search too (a POST only because it carries a
 * file or a URL: it changes nothing). POST /images is never retried. A wait longer than what is left of
 * the deadline is not slept: the call fails at once (`RateLimitedError` carrying the wait for 429/501).
 *
 * Some requests make the site wait on someone else: a reverse search by URL has the board download a
 * member's URL, which a member can make as slow as they like. Such a request says `retry: false` (one
 * attempt), `countTimeouts: false` (its timeouts and network errors are not the site's failures, so the
 * breaker does not count them; a 5xx, 429 or 501 still is the board's and counts) and its own `timeoutMs`.
 *
 * A body can be streamed (`StreamedBody`): it is opened only once the attempt holds its budget slot, once
 * per attempt, and sent with a Content-Length when its size is known, chunked otherwise. An error thrown
 * by its source (`open()` or the stream; a download from elsewhere that failed, a file over its limit) is
 * not the site's: it reaches the caller as it was thrown, is not retried and is not counted by the
 * breaker. So is a timeout that strikes while the attempt is waiting on its source
 * (a `TimeoutError` DOMException).
 *
 * The anti-bot layer (docs/board-behaviour.md, "Limits and politeness"): its 501 and an empty 500 are told
 * to the breaker as such, and once the breaker takes an answer for the board's block, the call fails with
 * `SiteBlockedError` at once: the request that met the block is not retried (each one restarts it).
 *
 * A call that finds the site paused (a 429's `Retry-After` or a 501 met by another call or process) for no
 * longer than `pauseWaitMs` waits the pause out and goes on, when that fits in its deadline: a member
 * whose interaction is deferred would rather wait a second than read "try again in 1 s". Autocomplete
 * never waits (its answer is due within 3 s, without a defer): it fails at once as before.
 *
 * It returns every answer below 500 except 429 as-is (the client maps 4xx to errors and parses 2xx); it
 * throws for 429, 501, 5xx, timeouts and resets once retries are spent.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher, type FormData } from 'undici';
import type { Logger } from 'pino';
import {
  InvalidResponseError,
  RateLimitedError,
  SiteBlockedError,
  SiteUnavailableError,
  systemErrorCode,
} from './errors.js';
import type { BreakerTicket, CircuitBreaker } from './breaker.js';
import type { BudgetSlot, RequestBudget } from './budget/index.js';
import { scrubError } from './redact.js';
import type { StreamedBody } from './streamed-body.js';
import type { RequestContext } from './request-context.js';
import { classify as classifyAnswer, giveUp, type Outcome } from './transport-outcome.js';

export { parseRetryAfter } from './transport-outcome.js';
export { multipartFileBody, type MultipartFile, type StreamedBody } from './streamed-body.js';

export interface TransportRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query, e.g. `/api/v1/json/images/1?filter_id=56027&key=...`. */
  readonly path: string;
  /** A JSON string (sent as application/json), a multipart form, or a streamed body. */
  readonly body?: string | (() => FormData) | StreamedBody;
  readonly idempotent: boolean;
  readonly signal?: AbortSignal;
  /** Who the request is for: the budget shares its slots by it (budget.ts). */
  readonly requester?: RequestContext;
  /** `false`: one attempt even when idempotent (the slowness it meets may be someone else's). */
  readonly retry?: boolean;
  /**
   * `false`: this request's timeouts and network errors say nothing about the site (it waits on a URL a
   * member chose), so the breaker does not count them. Answers (5xx, 429, 501) still count.
   */
  readonly countTimeouts?: boolean;
  /** This request's attempt timeout instead of `attemptTimeoutMs`; its deadline is at least as long. */
  readonly timeoutMs?: number;
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
  /**
   * Names the caller, so a site's operators can tell who is calling: an application passes its own name,
   * version and what it is. Default `DEFAULT_USER_AGENT`.
   */
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
  /** Least wait after an anti-bot 501. Default 5 s (docs/board-behaviour.md). */
  readonly antiBotDelayMs?: number;
  /**
   * A call that finds the site paused for at most this long (in all) waits the pause out instead of failing
   * (autocomplete never does). Default 2.5 s; 0 turns it off.
   */
  readonly pauseWaitMs?: number;
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

/**
 * The User-Agent of a caller that names none: the project and what it is, without a version (the library
 * reads nothing outside its folder; the bot passes its own, versioned, from its package.json).
 */
export const DEFAULT_USER_AGENT = 'philomena-bot (Discord bot for Philomena image boards)';

/** The platform's sleep; an abort rejects with the signal's reason (as every other wait here), not an AbortError. */
async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

function isStreamed(body: TransportRequest['body']): body is StreamedBody {
  return typeof body === 'object';
}

/** What the transport knows of a streamed body's source during one attempt. */
interface SourceState {
  /** The first error the source threw. */
  error?: { readonly value: unknown };
  /** Waiting on the source (opening it or for its next chunk) rather than on the site. */
  waiting: boolean;
}

/** `promise`, or the abort reason as soon as `signal` aborts: a stuck source cannot hold the attempt. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Feeds undici from the source, noting when the attempt waits on it and what it threw. */
async function* pump(
  source: AsyncIterable<Uint8Array>,
  state: SourceState,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      state.waiting = true;
      let next: IteratorResult<Uint8Array>;
      try {
        next = await untilAborted(iterator.next(), signal);
      } catch (error) {
        if (!signal.aborted) state.error ??= { value: error };
        throw error;
      } finally {
        state.waiting = false;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Lets the source close its download when the attempt ends early; its own errors are not ours.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

export function createTransport(options: TransportOptions): Transport {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher: Dispatcher =
    options.dispatcher ??
    new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const deadlineMs = options.deadlineMs ?? 30_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8_000;
  const antiBotDelayMs = options.antiBotDelayMs ?? 5_000;
  const pauseWaitMs = Math.max(0, options.pauseWaitMs ?? 2_500);
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const random = options.random ?? Math.random;
  const sleepFor = options.sleep ?? pause;
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
    // Whole milliseconds (AbortSignal.timeout refuses fractions), never shorter than asked.
    const timeout = AbortSignal.timeout(Math.ceil(timeoutMs));
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const source: SourceState | undefined = isStreamed(req.body) ? { waiting: false } : undefined;
    /** The timeout struck while the attempt waited on its body's source, not on the site. */
    let sourceStalled = false;
    const onTimeout = (): void => {
      sourceStalled = source?.waiting === true;
    };
    if (source) timeout.addEventListener('abort', onTimeout, { once: true });
    const started = now();
    const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
    let body: string | FormData | Readable | undefined;
    try {
      if (typeof req.body === 'string') {
        headers['content-type'] = 'application/json';
        body = req.body;
      } else if (typeof req.body === 'function') {
        body = req.body();
      } else if (req.body && source) {
        headers['content-type'] = req.body.contentType;
        if (req.body.length !== undefined) headers['content-length'] = String(req.body.length);
        source.waiting = true;
        let opened: AsyncIterable<Uint8Array>;
        try {
          opened = await untilAborted(req.body.open(signal), signal);
        } catch (error) {
          if (!signal.aborted) source.error = { value: error };
          throw error;
        } finally {
          source.waiting = false;
        }
        // Not in object mode: the stream reads at most one chunk ahead of the socket.
        body = Readable.from(pump(opened, source, signal), { objectMode: false });
      }
      const res = await request(`${base}${req.path}`, {
        method: req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
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
      return classifyAnswer(response, path, site, antiBotDelayMs);
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (source?.error) return { kind: 'source-failed', error: source.error.value };
      if (sourceStalled) {
        return {
          kind: 'source-failed',
          error: new DOMException(
            `the body of a request to ${site} did not arrive from its source within ${timeoutMs} ms`,
            'TimeoutError',
          ),
        };
      }
      if (error instanceof InvalidResponseError) throw error;
      const code = systemErrorCode(error);
      if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
        // Our own pool was shut down (the bot is stopping): not the site's fault, and nothing to retry.
        throw new SiteUnavailableError(`${site}: the connection pool is closed`, 'network', {
          site,
          path,
          cause: scrub(error),
        });
      }
      const timedOut = timeout.aborted;
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
        answered: false,
        error: new SiteUnavailableError(message, reason, {
          site,
          path,
          cause: timedOut ? undefined : scrub(error),
        }),
      };
    } finally {
      timeout.removeEventListener('abort', onTimeout);
    }
  }

  /**
   * Errors from undici can quote the URL (and with it the key) in their message or anywhere down their
   * `cause` chain: keep only a scrubbed message and the code, and drop the chain.
   */
  function scrub(error: unknown): Error {
    return scrubError(error, options.redact);
  }

  async function send(req: TransportRequest): Promise<TransportResponse> {
    const path = options.redact(req.path);
    const timeoutMs = req.timeoutMs ?? attemptTimeoutMs;
    // A request's own timeout is what its caller asked for: the usual deadline does not cut it short.
    const deadline = now() + (req.timeoutMs === undefined ? deadlineMs : Math.max(deadlineMs, req.timeoutMs));
    const attempts = req.idempotent && req.retry !== false ? maxAttempts : 1;
    let last: Extract<Outcome, { kind: 'retryable' }> | undefined;
    /** What is left of the call's `pauseWaitMs`. */
    let pauseLeft = req.requester?.priority === 'autocomplete' ? 0 : pauseWaitMs;
    /** The wait of a pause this call may sleep through now; undefined when it must fail with `error`. */
    const shortPause = (error: unknown): number | undefined => {
      // A pause the breaker holds (no status: no answer of this call), not the block, not too long.
      if (!(error instanceof RateLimitedError) || error instanceof SiteBlockedError) return undefined;
      if (error.status !== undefined) return undefined;
      const wait = error.retryAfterMs;
      return wait <= pauseLeft && wait < deadline - now() ? wait : undefined;
    };
    for (let attemptNo = 1; attemptNo <= attempts; attemptNo += 1) {
      if (req.signal?.aborted) throw req.signal.reason;
      let ticket: BreakerTicket | undefined;
      let outcome: Outcome;
      try {
        let slot: BudgetSlot | undefined;
        for (;;) {
          try {
            ticket = options.breaker?.enter();
            const left = deadline - now();
            slot = await options.budget?.acquire(req.path, {
              timeoutMs: left,
              ...(req.signal ? { signal: req.signal } : {}),
              ...(req.requester ? { requester: req.requester } : {}),
            });
            break;
          } catch (error) {
            ticket?.release();
            ticket = undefined;
            const wait = shortPause(error);
            if (wait === undefined) throw error;
            pauseLeft -= wait;
            await sleepFor(wait, req.signal);
          }
        }
        try {
          const attemptMs = Math.max(1, Math.min(timeoutMs, deadline - now()));
          outcome = await attempt(req, path, attemptMs, attemptNo);
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
      if (outcome.kind === 'source-failed') {
        ticket?.release();
        throw outcome.error;
      }
      if (!outcome.answered && req.countTimeouts === false) ticket?.release();
      else
        ticket?.failure({
          ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
          ...(outcome.antiBot === undefined ? {} : { antiBot: outcome.antiBot }),
        });
      // The board blocked us (this answer, or another call's or process's): no retry would be let through,
      // and each one would restart the block.
      const blocked = options.breaker?.blocked();
      if (blocked) throw blocked;
      last = outcome;
      if (attemptNo === attempts) break;
      const backoff = random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attemptNo - 1));
      const wait = Math.max(backoff, outcome.retryAfterMs ?? 0);
      if (wait > deadline - now()) return giveUp(outcome, wait);
      await sleepFor(wait, req.signal);
    }
    if (!last) throw new Error('unreachable: no attempt was made');
    return giveUp(last, last.retryAfterMs);
  }

  return {
    send,
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  };
}
