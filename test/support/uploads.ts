/**
 * What the upload suites share (test/e2e/upload*.test.ts): linking a member's key through `/me link` the
 * way a member does, an upload with `/upload`, and everything the bot said (to Discord and its log).
 */
import { expect } from 'vitest';
import type { InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import type { Harness } from './harness.js';
import { customIds } from './messages.js';

/** `/me link` in the bot's DM for `userId`, the button pressed, `key` pasted into the form. */
export async function linkKey(h: Harness, userId: string, key: string): Promise<void> {
  const intro = await h.discord
    .sendCommand({ name: 'me', subcommand: 'link', channel: 'dm', userId })
    .finalReply();
  const open = customIds(intro).find((id) => id.startsWith('melink:open:'));
  if (open === undefined) throw new Error(`no link button on: ${intro.content}`);
  const click: InteractionHandle = h.discord.sendButton({ message: intro, customId: open, userId });
  await click.acknowledged;
  const done = await h.discord.submitModal({ opener: click, values: { key } }).finalReply();
  expect(done.content).toMatch(/is linked/);
}

/** `/upload` as `userId` in `channel`. */
export function sendUpload(
  h: Harness,
  userId: string,
  options: Readonly<Record<string, string>>,
  channel = 'plain',
): Promise<RecordedMessage> {
  return h.discord.sendCommand({ name: 'upload', options, channel, userId }).finalReply();
}

/** Everything the bot sent to Discord and wrote to its log, as one text. */
export function everythingSaid(h: Harness): string {
  return JSON.stringify(h.discord.requests) + h.logText();
}

/** The POSTs of uploads the board got since `mark`. */
export function uploadPosts(h: Harness, mark: number) {
  return h.booru.requests.slice(mark).filter((r) => r.method === 'POST' && r.path.endsWith('/images'));
}
