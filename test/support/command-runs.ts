/**
 * Running one slash command end to end as a member would, for the e2e tests of the board's searches
 * (/gallery, /comments, /forum): in a channel of the bot's server (and its DM) through the server install,
 * anywhere else through the member's own install; its final answer, or the private note a refusal
 * became; a component of a message by the start of its custom id.
 */
import { MessageFlags } from 'discord.js';
import { expect } from 'vitest';
import type { ChannelTarget, InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import type { Harness } from './harness.js';
import { customIds } from './messages.js';

/** The channels of the bot's own server (and its DM), where the server's install answers. */
const IN_BOT_SERVER: ReadonlySet<string> = new Set([
  'plain',
  'ageRestricted',
  'threadInPlain',
  'threadInAgeRestricted',
  'dm',
]);

type Options = Readonly<Record<string, string | boolean>>;

export interface CommandRuns {
  send(options: Options, channel?: ChannelTarget, userId?: string): InteractionHandle;
  /** The command's final answer. */
  run(options: Options, channel?: ChannelTarget, userId?: string): Promise<RecordedMessage>;
  /** The private note a command's answer became (a refusal). */
  errorNote(handle: InteractionHandle): Promise<string>;
}

/** `harness`: read when a command is sent (the tests start it in `beforeAll`). */
export function commandRuns(harness: () => Harness, name: string): CommandRuns {
  function send(options: Options, channel: ChannelTarget = 'plain', userId?: string): InteractionHandle {
    return harness().discord.sendCommand({
      name,
      options,
      channel,
      ...(userId === undefined ? {} : { userId }),
      ...(typeof channel === 'string' && IN_BOT_SERVER.has(channel) ? {} : { install: 'user' as const }),
    });
  }
  return {
    send,
    run: (options, channel, userId) => send(options, channel, userId).finalReply(),
    async errorNote(handle) {
      await handle.acknowledged;
      const note = await harness().discord.waitFor(() => handle.followUps()[0], 15_000);
      expect(note.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
      return note.content;
    },
  };
}

/** The custom id of `message`'s component that starts with `prefix` (the test fails without one). */
export function componentId(message: RecordedMessage, prefix: string): string {
  const id = customIds(message).find((c) => c.startsWith(prefix));
  expect(id, `a ${prefix} component on the message`).toBeDefined();
  return id ?? '';
}
