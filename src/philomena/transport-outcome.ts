/**
 * What one attempt's answer means (the transport, transport.ts, acts on it): an answer to hand back, or a
 * failure to retry or give up on, with the wait the site asked for and the anti-bot layer's signs (its 501
 * page; an empty 500, the signature of its block: docs/board-behaviour.md, "Limits and politeness").
 */
import { RateLimitedError, SiteUnavailableError, type PhilomenaError } from './errors.js';
import type { TransportResponse } from './transport.js';

export type Outcome =
  | { readonly kind: 'response'; readonly response: TransportResponse }
  | {
      readonly kind: 'retryable';
      readonly error: PhilomenaError;
      /** The wait the site asked for, or our floor (501). */
      readonly retryAfterMs?: number;
      /** The site answered (5xx, 429, 501); false for a timeout or a network error. */
      readonly answered: boolean;
      /** The anti-bot layer's 501 page, or an empty 500 (its block's signature). */
      readonly antiBot?: 'challenge' | 'empty-500';
    }
  /** The body's source failed: not the site's doing. */
  | { readonly kind: 'source-failed'; readonly error: unknown };

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

/** An answer below 500 other than 429 is handed back; 429, 501 and 5xx are failures to retry. */
export function classify(
  response: TransportResponse,
  path: string,
  site: string,
  antiBotDelayMs: number,
): Outcome {
  const { status } = response;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    // Without a Retry-After, tell the caller a short wait rather than "now".
    const wait = retryAfterMs ?? 1_000;
    return {
      kind: 'retryable',
      answered: true,
      error: new RateLimitedError(`${site} is rate limiting us (HTTP 429)`, wait, { site, path, status }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status === 501) {
    // The anti-bot layer answers 501 with HTML: back off at least antiBotDelayMs, longer if it says so.
    const wait = Math.max(antiBotDelayMs, parseRetryAfter(response.headers['retry-after']) ?? 0);
    return {
      kind: 'retryable',
      answered: true,
      error: new RateLimitedError(`${site} is busy (HTTP 501 from its anti-bot layer)`, wait, {
        site,
        path,
        status,
      }),
      retryAfterMs: wait,
      antiBot: 'challenge',
    };
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    // The board's own 500 says `{"error":"Internal Error"}`; an empty one is the anti-bot block's.
    const emptyBlock = status === 500 && response.body.trim() === '';
    return {
      kind: 'retryable',
      answered: true,
      ...(emptyBlock ? { antiBot: 'empty-500' as const } : {}),
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

/** Throws the last failure, carrying the longer of its own wait and `wait`. */
export function giveUp(outcome: Extract<Outcome, { kind: 'retryable' }>, wait: number | undefined): never {
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
