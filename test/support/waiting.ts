/**
 * Waiting for the bot without fixed sleeps (a loaded CI machine gets the whole timeout): for an
 * acknowledgement, for what the member finally reads, for an unfurl's reply, for a log line.
 */
import { MessageFlags } from 'discord.js';
import type {
  ChannelTarget,
  FakeDiscord,
  InteractionHandle,
  RecordedMessage,
} from '../fakes/discord/index.js';

/** Discord's "thinking…" flag on a deferred reply. */
const LOADING = 1 << 7;

/** Asserts the interaction was acknowledged inside Discord's window; returns the latency. */
export async function acknowledgedMs(handle: InteractionHandle): Promise<number> {
  const ack = await handle.acknowledged;
  if (ack.ms >= 3000) throw new Error(`acknowledged after ${ack.ms} ms`);
  return ack.ms;
}

/**
 * What the member finally reads after a public defer: either the filled-in reply with its card
 * (`card`), or the ephemeral follow-up the router sends after removing the public "thinking…"
 * (`error`; throws if that error was shown publicly).
 */
export async function outcome(
  discord: FakeDiscord,
  handle: InteractionHandle,
  timeoutMs = 15_000,
): Promise<{ readonly kind: 'card' | 'error'; readonly message: RecordedMessage }> {
  await acknowledgedMs(handle);
  const seen = await discord.waitFor(() => {
    // Checked by the caller: a throw here would escape the fake's polling timer.
    const followUp = handle.followUps()[0];
    if (followUp !== undefined) return { kind: 'error' as const, message: followUp };
    const reply = handle.replyMessage();
    if (reply !== undefined && !reply.deleted && (reply.flags & LOADING) === 0 && reply.embeds.length > 0) {
      return { kind: 'card' as const, message: reply };
    }
    return undefined;
  }, timeoutMs);
  if (seen.kind === 'error' && (seen.message.flags & MessageFlags.Ephemeral) === 0) {
    throw new Error(`the error was shown publicly: ${seen.message.content}`);
  }
  return seen;
}

/** Posts `content` in `channel` and waits for the bot's reply to it (an unfurl). */
export async function unfurlReply(
  discord: FakeDiscord,
  channel: ChannelTarget,
  content: string,
  timeoutMs = 10_000,
): Promise<RecordedMessage> {
  const posted = await discord.sendMessage({ channel, content });
  return discord.waitFor(() => posted.replies()[0], timeoutMs);
}

/** Polls `check` until it holds. */
export async function eventually(
  check: () => boolean,
  timeoutMs = 10_000,
  what = 'a condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until a log line from index `since` on matches. */
export async function eventuallyLogged(
  h: { logLines(): Record<string, unknown>[] },
  match: (line: Record<string, unknown>) => boolean,
  what: string,
  { since = 0, timeoutMs = 10_000 }: { readonly since?: number; readonly timeoutMs?: number } = {},
): Promise<void> {
  await eventually(() => h.logLines().slice(since).some(match), timeoutMs, what);
}
