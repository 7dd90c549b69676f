import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createPhilomenaClient } from '../../src/philomena/client.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { isPhilomenaError } from '../../src/errors.js';

const KEY = 'Zq9-redaction+key/with=odd&chars';

let server: http.Server;
let site: Site;
beforeAll(async () => {
  // Each path answers one way; the 400 echoes the request URL back, key included, as a hostile server could.
  server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path.endsWith('/images/500')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `Internal Error at ${req.url ?? ''}` }));
    } else if (path.endsWith('/images/404')) {
      res.writeHead(404);
      res.end();
    } else if (path.endsWith('/search/images')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `cannot parse ${decodeURIComponent(req.url ?? '')}` }));
    } else if (path.endsWith('/images/200')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"image": {"id": "not a number"}}');
    } else {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = resolveSite(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function everything(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const fields = Object.fromEntries(Object.entries(error));
  return [
    error.message,
    error.stack,
    JSON.stringify(fields),
    error.cause === undefined ? '' : everything(error.cause),
  ].join('\n');
}

const forms = [KEY, encodeURIComponent(KEY), new URLSearchParams({ k: KEY }).toString().slice(2)];

describe('key redaction', () => {
  it.each([
    ['a 500 that quotes the URL', (c: ReturnType<typeof createPhilomenaClient>) => c.image(500)],
    ['a 404', (c: ReturnType<typeof createPhilomenaClient>) => c.image(404)],
    [
      'a 400 that echoes the query',
      (c: ReturnType<typeof createPhilomenaClient>) => c.searchImages({ q: 'x' }),
    ],
    ['a body that breaks the schema', (c: ReturnType<typeof createPhilomenaClient>) => c.image(200)],
    ['a connection reset', (c: ReturnType<typeof createPhilomenaClient>) => c.image(7)],
  ])('GIVEN %s THEN neither the error nor any log line holds the key', async (_name, call) => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    // The logger is given no secrets: the client must redact on its own.
    const logger = createLogger({ level: 'debug', destination });
    const client = createPhilomenaClient({
      site,
      apiKey: KEY,
      logger,
      transport: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const error = await call(client).catch((e: unknown) => e);
    await client.close();
    expect(isPhilomenaError(error)).toBe(true);
    const text = `${everything(error)}\n${lines.join('\n')}`;
    for (const form of forms) expect(text).not.toContain(form);
    if (isPhilomenaError(error) && error.path !== undefined) expect(error.path).toContain('key=[REDACTED]');
    expect(lines.length).toBeGreaterThan(0);
  });
});
