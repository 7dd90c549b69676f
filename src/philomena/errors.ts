/**
 * The errors the Philomena client library throws. Every error has a stable `code` and carries structured
 * data; messages never contain a secret (URLs are redacted before they reach an error). A failure of the
 * board (`PhilomenaError` and its subclasses) is told apart from a bad site name (`SiteUrlError`) and from a
 * bad parameter, which is a plain `RangeError`/`TypeError` thrown before any request.
 */

export type PhilomenaErrorCode =
  | 'PHILOMENA_NOT_FOUND'
  | 'PHILOMENA_BAD_QUERY'
  | 'PHILOMENA_FORBIDDEN'
  | 'PHILOMENA_RATE_LIMITED'
  | 'PHILOMENA_UNAVAILABLE'
  | 'PHILOMENA_INVALID_RESPONSE';

export interface PhilomenaErrorContext {
  /** Site id, e.g. `derpibooru`. */
  readonly site: string;
  /** The request path with the key redacted, e.g. `/api/v1/json/images/1?key=[REDACTED]`. */
  readonly path?: string;
  readonly status?: number;
  readonly cause?: unknown;
}

export abstract class PhilomenaError extends Error {
  abstract readonly code: PhilomenaErrorCode;
  readonly site: string;
  readonly path: string | undefined;
  readonly status: number | undefined;

  constructor(message: string, context: PhilomenaErrorContext) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.site = context.site;
    this.path = context.path;
    this.status = context.status;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/** 404, or a resource that is not there (empty body or `{"error":"Not found"}`). */
export class NotFoundError extends PhilomenaError {
  readonly code = 'PHILOMENA_NOT_FOUND';
}

/** 400 with the search parser's message, e.g. "Imbalanced parentheses.". */
export class BadQueryError extends PhilomenaError {
  readonly code = 'PHILOMENA_BAD_QUERY';
  constructor(
    readonly serverMessage: string,
    context: PhilomenaErrorContext,
  ) {
    super(`the site rejected the query: ${serverMessage}`, context);
  }
}

/** 401/403: a key is missing or not good enough, or the resource is closed (comments of deleted images). */
export class ForbiddenError extends PhilomenaError {
  readonly code = 'PHILOMENA_FORBIDDEN';
}

/**
 * The board refused a member's own key where it reads it (docs/board-behaviour.md, "Errors, situation by
 * situation"): 403 on `GET /filters/user`, 401 or 403 on `POST /images` (403: a banned account). Only a
 * member client (registry.ts `memberClient`) throws it, so the application can drop the key and tell its
 * owner once. A `ForbiddenError` still, for code that only knows that one. Carries no part of the key.
 */
export class MemberKeyRefusedError extends ForbiddenError {
  /** The call that met the refusal: listing the member's filters, or an upload. */
  readonly refusedOn: 'filters' | 'upload';

  constructor(message: string, refusedOn: 'filters' | 'upload', context: PhilomenaErrorContext) {
    super(message, context);
    this.refusedOn = refusedOn;
  }
}

/** 429 (or 501 from the anti-bot layer) and the wait the site asked for, or that we chose. */
export class RateLimitedError extends PhilomenaError {
  readonly code = 'PHILOMENA_RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterMs: number,
    context: PhilomenaErrorContext,
  ) {
    super(message, context);
  }
}

/**
 * The board's anti-bot block (docs/board-behaviour.md, "Limits and politeness"): after its 501 challenge, a
 * client that went on is answered with empty 500s for at least 15 minutes, and every request restarts them.
 * Nothing goes to the site, from any process, until `retryAfterMs` has passed. It is a `RateLimitedError`
 * ("slow down"), so whoever already backs off on those backs off on this too; `siteName` names the site
 * for whoever tells a person.
 */
export class SiteBlockedError extends RateLimitedError {
  readonly siteName: string;
  constructor(
    message: string,
    retryAfterMs: number,
    context: PhilomenaErrorContext & { readonly siteName?: string },
  ) {
    super(message, retryAfterMs, context);
    this.siteName = context.siteName ?? context.site;
  }
}

export type UnavailableReason = 'timeout' | 'network' | 'server-error' | 'circuit-open' | 'budget-exhausted';

/** The site cannot be reached now: 5xx, timeout, reset, the circuit breaker is open, or the budget queue is full. */
export class SiteUnavailableError extends PhilomenaError {
  readonly code = 'PHILOMENA_UNAVAILABLE';
  constructor(
    message: string,
    readonly reason: UnavailableReason,
    context: PhilomenaErrorContext & { readonly retryAfterMs?: number },
  ) {
    super(message, context);
    this.retryAfterMs = context.retryAfterMs;
  }
  readonly retryAfterMs: number | undefined;
}

/** A 2xx body that is not JSON or does not fit the schema. `fieldPath` names the first bad field. */
export class InvalidResponseError extends PhilomenaError {
  readonly code = 'PHILOMENA_INVALID_RESPONSE';
  constructor(
    message: string,
    readonly fieldPath: string,
    context: PhilomenaErrorContext,
  ) {
    super(message, context);
  }
}

/** Why a site name or base URL was refused. */
export type SiteUrlProblem = 'unknown' | 'not-http' | 'credentials' | 'insecure';

/**
 * A site name or base URL that cannot be used (`resolveSite`). `problem` says which rule it broke, so a
 * caller can say how to fix it without repeating the value (which may hold a secret or a typo'd key).
 */
export class SiteUrlError extends Error {
  readonly code = 'SITE_URL_INVALID';
  constructor(
    message: string,
    readonly problem: SiteUrlProblem,
  ) {
    super(message);
  }
  override get name(): string {
    return 'SiteUrlError';
  }
}

export function isPhilomenaError(error: unknown): error is PhilomenaError {
  return error instanceof PhilomenaError;
}

/** The `code` a Node or undici error carries (`ECONNREFUSED`, `UND_ERR_CLOSED`, ...), if it is a string. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
