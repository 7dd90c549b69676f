/**
 * What the upload suites share (test/e2e/upload*.test.ts): an upload with `/upload` and the board's record
 * of it; linking a key and everything the bot said come from member-links.ts.
 */
import type { RecordedMessage } from '../fakes/discord/index.js';
import type { Harness } from './harness.js';

export { everythingSaid, linkKey } from './member-links.js';

/** `/upload` as `userId` in `channel`. */
export function sendUpload(
  h: Harness,
  userId: string,
  options: Readonly<Record<string, string>>,
  channel = 'plain',
): Promise<RecordedMessage> {
  return h.discord.sendCommand({ name: 'upload', options, channel, userId }).finalReply();
}

/** The POSTs of uploads the board got since `mark`. */
export function uploadPosts(h: Harness, mark: number) {
  return h.booru.requests.slice(mark).filter((r) => r.method === 'POST' && r.path.endsWith('/images'));
}
