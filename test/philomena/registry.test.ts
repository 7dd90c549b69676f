import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createClientRegistry } from '../../src/philomena/registry.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';
import { ForbiddenError, SiteUnavailableError } from '../../src/philomena/errors.js';
import { philomenaFixture } from '../support/shared.js';

const KEY = 'registry-secret-key-0042';
const IMAGE = readFileSync(philomenaFixture('derpibooru_2020_image_2028858_show_response.json'), 'utf8');

interface Booru {
  site: Site;
  urls: string[];
  status: number;
  close(): Promise<void>;
}

const open: Booru[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

async function booru(): Promise<Booru> {
  const urls: string[] = [];
  const state = { status: 200 };
  const server = http.createServer((req, res) => {
    urls.push(req.url ?? '');
    // 0: take the request and never answer (until close()).
    if (state.status === 0) return;
    if (state.status !== 200) {
      res.writeHead(state.status);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(IMAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const b: Booru = {
    site: resolveSite(`http://127.0.0.1:${port}`),
    urls,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(b);
  return b;
}

function quietLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', secrets: [KEY], destination }), lines };
}

describe('client registry', () => {
  it('GIVEN two sites THEN the key goes to the default site only, and each site has its own cache entries', async () => {
    const home = await booru();
    const other = await booru();
    const { logger } = quietLogger();
    const registry = createClientRegistry({ defaultSite: home.site, apiKey: KEY, cache: new Keyv(), logger });
    const homeClient = registry.client(home.site);
    expect(registry.client(home.site)).toBe(homeClient);
    await homeClient.image(2028858);
    await registry.client(other.site).image(2028858);
    await registry.client(other.site).image(2028858);
    await homeClient.image(2028858);
    // Reads never carry the key (they would lend the owner's rights); the owner's own calls do, on the
    // default site only: another site's client has no key to send.
    expect(home.urls).toEqual(['/api/v1/json/images/2028858']);
    expect(other.urls).toEqual(['/api/v1/json/images/2028858']);
    await homeClient.userFilters().catch(() => undefined);
    await expect(registry.client(other.site).userFilters()).rejects.toBeInstanceOf(ForbiddenError);
    expect(home.urls.slice(1)).toEqual([`/api/v1/json/filters/user?key=${KEY}`]);
    expect(other.urls).toHaveLength(1);
    await registry.close();
  });

  it('GIVEN one site fails until its breaker opens THEN the other site is still served', async () => {
    const broken = await booru();
    const healthy = await booru();
    broken.status = 503;
    const { logger } = quietLogger();
    const registry = createClientRegistry({
      defaultSite: healthy.site,
      cache: new Keyv(),
      logger,
      breaker: { failureThreshold: 2 },
      transport: { maxAttempts: 1 },
    });
    for (let i = 0; i < 2; i += 1) {
      await expect(registry.client(broken.site).image(1 + i)).rejects.toMatchObject({
        reason: 'server-error',
      });
    }
    const refused = await registry
      .client(broken.site)
      .image(5)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SiteUnavailableError);
    expect(refused).toMatchObject({ reason: 'circuit-open' });
    expect(broken.urls).toHaveLength(2);
    await expect(registry.client(healthy.site).image(2028858)).resolves.toMatchObject({ id: 2028858 });
    await registry.close();
  });

  describe('close', () => {
    /** A registry whose request to a site that never answers is in flight, with timeouts far off. */
    async function hangingRequest() {
      const site = await booru();
      site.status = 0;
      const { logger } = quietLogger();
      const backoffs: number[] = [];
      const registry = createClientRegistry({
        defaultSite: site.site,
        cache: new Keyv(),
        logger,
        transport: { attemptTimeoutMs: 60_000, deadlineMs: 120_000 },
        // One failure would open it: the pool's own shutdown must not count as the site failing.
        breaker: { failureThreshold: 1 },
        sleep: (ms) => {
          backoffs.push(ms);
          return Promise.resolve();
        },
      });
      const pending = registry
        .client(site.site)
        .image(1)
        .then(
          () => 'answered',
          (e: unknown) => e,
        );
      await expect.poll(() => site.urls.length).toBe(1);
      return { site, registry, pending, backoffs };
    }

    it('GIVEN a request the site never answers WHEN closed with force THEN close returns at once and the request fails without a retry', async () => {
      const { site, registry, pending, backoffs } = await hangingRequest();
      const [client] = registry.clients();
      const started = performance.now();
      await registry.close({ force: true });
      expect(performance.now() - started).toBeLessThan(1_000);
      const outcome = await pending;
      expect(outcome).toBeInstanceOf(SiteUnavailableError);
      expect(outcome).toMatchObject({ reason: 'network' });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(site.urls).toHaveLength(1);
      expect(backoffs).toEqual([]);
      expect(client?.stats().breaker).toBe('closed');
      // A second close, forced or not, is harmless.
      await registry.close();
      await registry.close({ force: true });
    });

    it('GIVEN the same request WHEN closed gracefully THEN close waits for it; a forced close then ends both', async () => {
      const { registry, pending } = await hangingRequest();
      let closed = false;
      const graceful = registry.close().then(() => {
        closed = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(closed).toBe(false);
      await registry.close({ force: true });
      await graceful;
      expect(await pending).toBeInstanceOf(SiteUnavailableError);
    });
  });
});
