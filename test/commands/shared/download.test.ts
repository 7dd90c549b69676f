import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attachmentHosts,
  createDownloader,
  DISCORD_CDN_HOSTS,
  DOWNLOAD_FAILED_TEXT,
  NOT_READABLE_TEXT,
  readAll,
  type DownloaderOptions,
} from '../../../commands/shared/download.js';
import { userErrorText } from '../../../commands/shared/error-texts.js';
import { UserFacingError } from '../../../src/discord/failures.js';

let servers: Server[] = [];
/** The origin of the first file server a test starts (the local Discord's, as it were). */
let firstOrigin = 'http://127.0.0.1:1';
afterEach(async () => {
  const current = servers;
  servers = [];
  firstOrigin = 'http://127.0.0.1:1';
  for (const server of current) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A local file server whose every answer is `handle`; resolves with its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const made = createServer(handle);
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', () => resolve()));
  servers.push(made);
  const origin = `http://127.0.0.1:${(made.address() as AddressInfo).port}`;
  if (servers.length === 1) firstOrigin = origin;
  return `${origin}/file.png`;
}

/** Opens and reads the whole file, as the reverse search's upload would, with the first server's origin allowed. */
async function fetchAll(url: string, maxBytes: number, options: DownloaderOptions = {}): Promise<Uint8Array> {
  const download = createDownloader({ allowedHosts: [firstOrigin], ...options });
  return readAll(await download(url, { maxBytes }));
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('the download succeeded');
    },
    (error: unknown) => error,
  );
}

describe('attachment download', () => {
  it('GIVEN a file server THEN the bytes come back', async () => {
    const url = await serve((_req, res) => res.end(Buffer.from([1, 2, 3])));
    expect(await fetchAll(url, 10)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('GIVEN the connection reset THEN a try-again error for the member with the network failure as cause', async () => {
    const url = await serve((req) => req.socket.destroy());
    const error = await failure(fetchAll(url, 10));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(userErrorText(error)).toEqual({
      id: 'download.failed',
      text: DOWNLOAD_FAILED_TEXT,
      expected: true,
    });
  });

  it('GIVEN no answer within the timeout THEN the same try-again error', async () => {
    const url = await serve(() => undefined);
    const error = await failure(fetchAll(url, 10, { timeoutMs: 50 }));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
  });

  it('GIVEN the body stalling after the headers THEN the same try-again error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.from([1]));
    });
    const error = await failure(fetchAll(url, 10, { timeoutMs: 80 }));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
  });

  it('GIVEN a URL that does not parse or is not http(s) THEN the file cannot be read', async () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/file.png']) {
      const error = await failure(fetchAll(url, 10));
      expect(error).toBeInstanceOf(UserFacingError);
      expect((error as Error).message).toBe('That file cannot be read.');
    }
  });

  it('GIVEN a body over the cap THEN too large', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(2_000_001));
    });
    const error = await failure(fetchAll(url, 2_000_000));
    expect((error as Error).message).toBe('That file is too large (at most 2 MB).');
  });

  it('GIVEN a host that is not Discord’s CDN THEN nothing is requested and the file cannot be read', async () => {
    let asked = 0;
    const url = await serve((_req, res) => {
      asked += 1;
      res.end(Buffer.from([1]));
    });
    const download = createDownloader();
    for (const target of [url, 'https://example.com/a.png', 'https://user@cdn.discordapp.com/a.png']) {
      const error = await failure(download(target, { maxBytes: 10 }));
      expect((error as Error).message).toBe(NOT_READABLE_TEXT);
    }
    expect(asked).toBe(0);
  });

  it('GIVEN a redirect off the allowed hosts THEN it is not followed', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: 'http://localhost:1/elsewhere.png' });
      res.end();
    });
    const error = await failure(fetchAll(url, 10));
    expect((error as Error).message).toBe(NOT_READABLE_TEXT);
  });

  it('GIVEN a redirect within the allowed hosts THEN it is followed', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/file.png') {
        res.writeHead(302, { location: '/moved.png' });
        res.end();
      } else res.end(Buffer.from([4, 5]));
    });
    expect(await fetchAll(url, 10)).toEqual(new Uint8Array([4, 5]));
  });

  it('GIVEN a local Discord API base THEN exactly its origin is read besides the CDN hosts; a remote one adds nothing', () => {
    expect(attachmentHosts(undefined)).toEqual(DISCORD_CDN_HOSTS);
    expect(attachmentHosts('http://127.0.0.1:4000/api')).toEqual([
      ...DISCORD_CDN_HOSTS,
      'http://127.0.0.1:4000',
    ]);
    expect(attachmentHosts('http://LOCALHOST:80/api')).toEqual([...DISCORD_CDN_HOSTS, 'http://localhost']);
    expect(attachmentHosts('https://discord-proxy.example/api')).toEqual(DISCORD_CDN_HOSTS);
  });

  it('GIVEN the local Discord’s origin allowed THEN another port on its host, or the other scheme, is not read (review N12)', async () => {
    let asked = 0;
    await serve((_req, res) => res.end(Buffer.from([1])));
    const other = await serve((_req, res) => {
      asked += 1;
      res.end(Buffer.from([2]));
    });
    const download = createDownloader({ allowedHosts: attachmentHosts(`${firstOrigin}/api`) });
    expect(await readAll(await download(`${firstOrigin}/cdn/a.png`, { maxBytes: 10 }))).toEqual(
      new Uint8Array([1]),
    );
    for (const target of [other, firstOrigin.replace('http:', 'https:') + '/a.png']) {
      const error = await failure(download(target, { maxBytes: 10 }));
      expect((error as Error).message).toBe(NOT_READABLE_TEXT);
    }
    expect(asked).toBe(0);
  });

  it('GIVEN a redirect from the allowed origin to another port on its host THEN it is not followed', async () => {
    let asked = 0;
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: other });
      res.end();
    });
    const other = await serve((_req, res) => {
      asked += 1;
      res.end(Buffer.from([2]));
    });
    const download = createDownloader({ allowedHosts: attachmentHosts(`${firstOrigin}/api`) });
    const error = await failure(download(url, { maxBytes: 10 }));
    expect((error as Error).message).toBe(NOT_READABLE_TEXT);
    expect(asked).toBe(0);
  });

  it('GIVEN a CDN host in plain http or on another port THEN it is not read', async () => {
    const download = createDownloader();
    for (const target of [
      'http://cdn.discordapp.com/attachments/1/2/a.png',
      'http://media.discordapp.net/attachments/1/2/a.png',
      'https://cdn.discordapp.com:8443/attachments/1/2/a.png',
    ]) {
      const error = await failure(download(target, { maxBytes: 10 }));
      expect({ target, message: (error as Error).message }).toEqual({ target, message: NOT_READABLE_TEXT });
    }
  });
});
