import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDownloader, DOWNLOAD_FAILED_TEXT } from '../../src/bot/download.js';
import { UserFacingError, userErrorText } from '../../src/bot/user-error.js';

let server: Server | undefined;
afterEach(async () => {
  const current = server;
  server = undefined;
  if (current === undefined) return;
  current.closeAllConnections();
  await new Promise<void>((resolve) => current.close(() => resolve()));
});

/** A local file server whose every answer is `handle`; resolves with its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const made = createServer(handle);
  server = made;
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(made.address() as AddressInfo).port}/file.png`;
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
    expect(await createDownloader()(url, { maxBytes: 10 })).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('GIVEN the connection reset THEN a try-again error for the member with the network failure as cause', async () => {
    const url = await serve((req) => req.socket.destroy());
    const error = await failure(createDownloader()(url, { maxBytes: 10 }));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(userErrorText(error)).toEqual({ text: DOWNLOAD_FAILED_TEXT, expected: true });
  });

  it('GIVEN no answer within the timeout THEN the same try-again error', async () => {
    const url = await serve(() => undefined);
    const error = await failure(createDownloader({ timeoutMs: 50 })(url, { maxBytes: 10 }));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
  });

  it('GIVEN the body stalling after the headers THEN the same try-again error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.from([1]));
    });
    const error = await failure(createDownloader({ timeoutMs: 80 })(url, { maxBytes: 10 }));
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe(DOWNLOAD_FAILED_TEXT);
  });

  it('GIVEN a URL that does not parse or is not http(s) THEN the file cannot be read', async () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/file.png']) {
      const error = await failure(createDownloader()(url, { maxBytes: 10 }));
      expect(error).toBeInstanceOf(UserFacingError);
      expect((error as Error).message).toBe('That file cannot be read.');
    }
  });

  it('GIVEN a body over the cap THEN too large', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(2_000_001));
    });
    const error = await failure(createDownloader()(url, { maxBytes: 2_000_000 }));
    expect((error as Error).message).toBe('That file is too large (at most 2 MB).');
  });
});
