/**
 * Driving the real bot (test/e2e/harness.ts: local Discord + local Philomena) once per property run, and
 * the checks every run makes: the interaction was acknowledged in time and nothing Discord would refuse
 * was sent (the fake's `violations`), nothing could ping (`mentionRisks`), no message shows an http URL
 * (other than the local Philomena's own, which has no TLS), a mention, a secret, or breaks a limit, and no
 * log line carries a secret.
 */
import { MessageFlags } from 'discord.js';
import type { Harness } from '../support/harness.js';
import type { InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import { FAKE_KEY, type RecordedRequest } from '../fakes/philomena/index.js';
import { messageProblems } from './invariants.js';

const LOADING = 1 << 7;

/** Where the logs of both fakes stood when a run began. */
export interface Mark {
  readonly discord: number;
  readonly booru: number;
  readonly log: number;
}

export function mark(h: Harness): Mark {
  return { discord: h.discord.requests.length, booru: h.booru.requests.length, log: h.logLines().length };
}

/** The board requests made since `from`, as the board received them. */
export function boardRequestsSince(h: Harness, from: Mark): RecordedRequest[] {
  return h.booru.requests.slice(from.booru);
}

/** What the member ends up with: the filled-in reply, or the ephemeral follow-up after a removed one. */
export async function outcome(h: Harness, handle: InteractionHandle): Promise<RecordedMessage> {
  await handle.acknowledged;
  return h.discord.waitFor(() => {
    const followUp = handle.followUps()[0];
    if (followUp !== undefined) return followUp;
    const reply = handle.replyMessage();
    if (reply !== undefined && !reply.deleted && (reply.flags & LOADING) === 0) return reply;
    return undefined;
  }, 10_000);
}

export function isEphemeral(message: RecordedMessage): boolean {
  return (message.flags & MessageFlags.Ephemeral) !== 0;
}

/** The message bodies the bot sent since `from` (interaction callbacks unwrapped to their `data`). */
function sentBodies(h: Harness, from: Mark): unknown[] {
  return h.discord.requests.slice(from.discord).flatMap((request) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null) return [];
    const record = body as Record<string, unknown>;
    if (typeof record['type'] === 'number' && 'data' in record)
      return record['data'] === undefined ? [] : [record['data']];
    return [body];
  });
}

/** Every check shared by all runs; returns the problems found (empty when the run was clean). */
export function runProblems(h: Harness, from: Mark): string[] {
  const secrets = [FAKE_KEY, h.discord.token];
  const problems: string[] = [];
  for (const violation of h.discord.violations)
    problems.push(`Discord violation: ${violation.kind}: ${violation.message}`);
  for (const risk of h.discord.mentionRisks)
    problems.push(`mention risk on ${risk.route}: ${JSON.stringify(risk.allowedMentions)}`);
  for (const body of sentBodies(h, from)) {
    problems.push(...messageProblems(body, { secrets, allowedOrigins: [h.booru.url] }));
  }
  const logs = h.logText();
  for (const secret of secrets) if (logs.includes(secret)) problems.push('a secret is in the logs');
  return problems;
}

/** Log lines since `from` at error level or above (a bug, not an expected failure). */
export function errorLogsSince(h: Harness, from: Mark): Record<string, unknown>[] {
  return h
    .logLines()
    .slice(from.log)
    .filter((line) => typeof line['level'] === 'number' && line['level'] >= 50);
}

/** The query parameters of a board request, as a plain multi-map. */
export function paramsOf(request: RecordedRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of request.query) (out[name] ??= []).push(value);
  return out;
}

/** `text` as it comes back out of a URL query (lone surrogates become U+FFFD on the way in). */
export function throughUrl(text: string): string {
  return new URLSearchParams([['x', text]]).get('x') ?? '';
}
