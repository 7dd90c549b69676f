/**
 * A picture that cannot be downloaded (the connection drops) is an expected failure: the member reads a
 * try-again line, the log keeps the network cause at info level, and nothing is logged as a bot fault.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSourceOnAttachment } from '../support/messages.js';
import { DOWNLOAD_FAILED_TEXT } from '../../commands/shared/download.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let files: Server;
let fileUrl: string;

beforeAll(async () => {
  h = await startHarness();
  files = createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', () => resolve()));
  fileUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/attachments/pic.png`;
});
afterAll(async () => {
  files.closeAllConnections();
  await new Promise<void>((resolve) => files.close(() => resolve()));
  await h.close();
});

describe('a picture that cannot be downloaded', () => {
  it('GIVEN Find source on an attachment whose download fails THEN try again AND the cause is logged at info, no error', async () => {
    const from = h.logLines().length;
    const reply = await findSourceOnAttachment(h.discord, fileUrl);
    expect(reply.content).toBe(DOWNLOAD_FAILED_TEXT);
    const lines = h.logLines().slice(from);
    const failed = lines.find((line) => line['msg'] === 'interaction failed with an expected error');
    expect(failed?.['level']).toBe(30);
    expect(JSON.stringify(failed?.['err'])).toContain('fetch failed');
    expect(lines.filter((line) => typeof line['level'] === 'number' && line['level'] >= 50)).toEqual([]);
  });
});
