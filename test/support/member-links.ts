/**
 * A member's linked board account in end-to-end tests (issue 22): `/me link` the way a member does it,
 * and everything the bot said, to look for a key in it.
 */
import { expect } from 'vitest';
import type { InteractionHandle } from '../fakes/discord/index.js';
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

/** Everything the bot sent to Discord and wrote to its log, as one text. */
export function everythingSaid(h: Harness): string {
  return JSON.stringify(h.discord.requests) + h.logText();
}
