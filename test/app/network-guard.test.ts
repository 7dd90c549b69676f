import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { isLoopbackHost } from '../setup.js';

describe('test network guard', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['::1', true],
    ['localhost', true],
    ['derpibooru.org', false],
    ['10.0.0.1', false],
    ['1.1.1.1', false],
  ])('GIVEN host %s THEN loopback=%s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('GIVEN a request to a public host THEN it fails without leaving the machine', async () => {
    await expect(request('https://derpibooru.org/api/v1/json/images/1')).rejects.toThrow(/network guard/);
  });

  it('GIVEN a local server THEN requests to it go through', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/`);
    expect(await res.body.text()).toBe('ok');
    server.close();
  });
});
