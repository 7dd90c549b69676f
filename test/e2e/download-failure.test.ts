/**
 * A picture that cannot be downloaded (the connection drops) is an expected failure: the member reads a
 * try-again line, the log keeps the network cause at info level, and nothing is logged as a bot fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSourceOnAttachment } from '../support/messages.js';
import { DOWNLOAD_FAILED_TEXT } from '../../commands/shared/download.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let fileUrl: string;

beforeAll(async () => {
  h = await startHarness();
  // On the local Discord's origin (the bot downloads from nowhere else), whose host drops the connection.
  fileUrl = h.discord.cdnFile('pic.png', 'reset');
});
afterAll(async () => {
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
