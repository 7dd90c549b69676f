/**
 * Fault injection for the local Philomena: per-test rules that answer (or refuse to answer) before normal
 * routing, the way the real edge proxy, anti-bot layer and a broken server do. Rules are checked in order;
 * the first whose path matches fires and counts down its `times`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Fault =
  | { kind: 'latency'; ms: number }
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  | { kind: 'rate-limit'; retryAfterSeconds?: number }
  | { kind: 'anti-bot' }
  | { kind: 'malformed-json' }
  | { kind: 'schema-break' }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'empty-500' };

export interface FaultRule {
  fault: Fault;
  /** A string matches as a prefix of the path (without query); a RegExp is tested against the path. */
  path?: string | RegExp;
  /** How many requests the rule fires for; default: forever. */
  times?: number;
}

interface ActiveRule {
  readonly rule: FaultRule;
  remaining: number;
}

export interface FaultTable {
  inject(rule: FaultRule): void;
  clear(): void;
  /** The fault for this path, counting down its rule; undefined when no rule matches. */
  take(path: string): Fault | undefined;
}

export function createFaultTable(): FaultTable {
  let rules: ActiveRule[] = [];
  const matches = (rule: FaultRule, path: string): boolean => {
    if (rule.path === undefined) return true;
    if (typeof rule.path === 'string') return path.startsWith(rule.path);
    rule.path.lastIndex = 0;
    return rule.path.test(path);
  };
  return {
    inject(rule) {
      if (rule.times !== undefined && (!Number.isInteger(rule.times) || rule.times < 1)) {
        throw new RangeError(`fault rule times must be a positive integer, got ${rule.times}`);
      }
      rules.push({ rule, remaining: rule.times ?? Number.POSITIVE_INFINITY });
    },
    clear() {
      rules = [];
    },
    take(path) {
      const active = rules.find((r) => r.remaining > 0 && matches(r.rule, path));
      if (!active) return undefined;
      active.remaining -= 1;
      if (active.remaining <= 0) rules = rules.filter((r) => r !== active);
      return active.rule.fault;
    },
  };
}

const RATE_LIMIT_PAGE =
  '<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head>' +
  '<body><h1>Too Many Requests</h1><p>You are being rate limited. Slow down.</p></body></html>';
const ANTI_BOT_PAGE =
  '<!DOCTYPE html><html><head><title>Just a moment...</title></head>' +
  '<body><noscript>Please enable JavaScript and cookies to continue.</noscript></body></html>';

const NO_CACHE = 'no-store, no-cache';

/**
 * Answers a terminal fault. `latency` is not terminal (the caller waits and goes on routing); `hang` is
 * answered by never writing: the caller keeps the response until the server closes.
 */
export function answerFault(fault: Fault, req: IncomingMessage, res: ServerResponse): void {
  switch (fault.kind) {
    case 'latency':
    case 'hang':
      return;
    case 'status': {
      const body = fault.body ?? (fault.status >= 500 ? '{"error":"Internal Error"}' : '');
      res.writeHead(fault.status, {
        'content-type': fault.contentType ?? 'application/json; charset=utf-8',
        'cache-control': NO_CACHE,
      });
      res.end(body);
      return;
    }
    case 'rate-limit': {
      const headers: Record<string, string> = {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': NO_CACHE,
      };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      res.writeHead(429, headers);
      res.end(RATE_LIMIT_PAGE);
      return;
    }
    case 'anti-bot':
      res.writeHead(501, { 'content-type': 'text/html; charset=utf-8', 'cache-control': NO_CACHE });
      res.end(ANTI_BOT_PAGE);
      return;
    case 'malformed-json':
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': NO_CACHE });
      res.end('{"images": [{"id": 1, "tags": ["safe"');
      return;
    case 'schema-break':
      // Valid JSON, wrong shape for every endpoint: the envelope keys hold the wrong types.
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': NO_CACHE });
      res.end(
        JSON.stringify({
          image: 'not an object',
          images: { id: 'one' },
          tag: [1, 2, 3],
          tags: 'none',
          total: 'many',
          filters: null,
          error: 42,
        }),
      );
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'empty-500':
      res.writeHead(500, { 'cache-control': NO_CACHE, 'content-length': '0' });
      res.end();
      return;
  }
}
