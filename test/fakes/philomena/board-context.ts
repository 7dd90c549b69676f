/**
 * What the route modules (`routes/*.ts`) share with server.ts: the answer a handler returns, what one
 * request knows, and the board they register on. The board is created once per `startFakePhilomena`,
 * so nothing here holds state.
 */
import type { AccountBook, AccountRecord } from './accounts.js';
import type { Dataset, UserRecord } from './data.js';
import type { UploadedFile } from './multipart.js';
import type { QueryContext } from './query.js';
import type { ErrorStyle, RenderContext, TagIndex } from './render.js';
import type { UploadRules } from './upload-rules.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly contentType: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const json = (status: number, value: unknown): HttpAnswer =>
  new HttpAnswer(status, JSON.stringify(value), JSON_TYPE);
export const empty = (status: number): HttpAnswer => new HttpAnswer(status, '', 'text/plain; charset=utf-8');

/** What one request knows: its params (query, plus the body's on POST), user, filter. */
export interface RequestContext {
  readonly method: string;
  readonly path: string;
  readonly params: URLSearchParams;
  /** The query string alone (params also hold the body's fields on POST). */
  readonly query: URLSearchParams;
  readonly files: Map<string, UploadedFile>;
  /** The key's account's user (undefined without a key that opens one: the request is anonymous). */
  readonly user: UserRecord | undefined;
  readonly account: AccountRecord | undefined;
  readonly contentType: string;
  readonly jsonBody: unknown;
}

/** `m` is the route pattern's match against the path below `/api/v1/json`. */
export type Handler = (ctx: RequestContext, m: RegExpExecArray) => HttpAnswer | Promise<HttpAnswer>;

/**
 * One fake board as the route modules see it. Handlers read `data`, `tagIndex`, `style` and `base` from
 * here at request time, never at registration: `reset()` swaps the data set and the style, an upload
 * rebuilds the tag index, and `base` is only known once the server listens.
 */
export interface Board {
  data: Dataset;
  /** Who each key opens; rebuilt with the data set. */
  accounts: AccountBook;
  /** What POST /images accepts (a test may change it: Furbooru's five tags, a smaller size limit). */
  uploads: UploadRules;
  tagIndex: TagIndex;
  style: ErrorStyle;
  base: string;
  /**
   * Registers an API route (`pattern` tested against the path below `/api/v1/json`); the first
   * registered pattern that matches with the same method wins, so `/images/featured` goes before
   * `/images/([^/]+)`.
   */
  add(method: string, pattern: RegExp, handler: Handler): void;
  renderContext(): RenderContext;
  queryContext(ctx: RequestContext): QueryContext;
  /** The style's 404: empty in Derpibooru's, `{"error":"Not found"}` upstream. */
  notFound(): HttpAnswer;
  /** What both styles answer for an id that is not a number. */
  badRequest(): HttpAnswer;
}

export const numeric = (raw: string | undefined): number | undefined =>
  raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
