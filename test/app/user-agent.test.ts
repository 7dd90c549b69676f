/**
 * The bot's User-Agent towards the boards: the library names no version (it reads nothing outside its
 * folder), so the app builds one from its package.json and hands it to the clients (src/main.ts).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { projectUserAgent } from '../../src/config.js';
import { createRedactor } from '../../src/philomena/redact.js';
import { createTransport } from '../../src/philomena/transport.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A board that answers `{}` and keeps each request's User-Agent. */
async function serve(): Promise<{ url: string; agents: (string | undefined)[] }> {
  const agents: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    agents.push(req.headers['user-agent']);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, agents };
}

describe('the bot names itself to the boards', () => {
  it('GIVEN the bot THEN its User-Agent names the project, its package.json version and what it is, and its requests carry it', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(projectUserAgent()).toBe(`philomena-bot/${version} (Discord bot for Philomena image boards)`);
    expect(projectUserAgent()).not.toMatch(/github/i);
    const board = await serve();
    const transport = createTransport({
      site: 'test',
      baseUrl: board.url,
      redact: createRedactor([]),
      userAgent: projectUserAgent(),
    });
    await transport.send({ method: 'GET', path: '/api/v1/json/images/1', idempotent: true });
    await transport.close();
    expect(board.agents).toEqual([projectUserAgent()]);
  });
});
