/**
 * Posting to a channel on the bot's own initiative (feeds), through the one place that shapes what the
 * bot sends (acks.ts `outgoing`, so nothing pings anyone), and reading a channel as a poster must know it.
 *
 * A post carries a `nonce` with `enforce_nonce`: Discord then creates at most one message per nonce in a
 * channel for a few minutes, so a send retried after a crash or a lost answer posts nothing twice.
 *
 * Discord's refusals come back as values the caller can act on: the channel is gone (404, Unknown Channel)
 * or the bot may not post there (403: Missing Access, Missing Permissions). Anything else (5xx after the
 * REST client's retries, a network failure) is `failed`: try again later.
 */
import { DiscordAPIError, Routes, type Channel, type Client } from 'discord.js';
import { outgoing } from './acks.js';
import type { MessageBody } from './contract.js';

/** Discord's nonce: at most 25 characters. */
export const NONCE_MAX = 25;

export type PostResult =
  | { readonly ok: true; readonly messageId: string }
  | { readonly ok: false; readonly reason: 'missing' | 'forbidden' | 'failed'; readonly detail: string };

export interface ChannelPoster {
  /** The channel (a thread with its parent loaded), or null when Discord says it is gone. */
  channel(channelId: string): Promise<Channel | null>;
  /** Posts `body` once per `nonce` (at most 25 characters). */
  post(channelId: string, body: MessageBody, nonce: string): Promise<PostResult>;
}

const MISSING_CODES: ReadonlySet<number | string> = new Set([10003]);
const FORBIDDEN_CODES: ReadonlySet<number | string> = new Set([50001, 50013]);

function refusal(error: unknown): PostResult {
  if (error instanceof DiscordAPIError) {
    if (MISSING_CODES.has(error.code) || error.status === 404) {
      return { ok: false, reason: 'missing', detail: `${error.status} ${error.message}` };
    }
    if (FORBIDDEN_CODES.has(error.code) || error.status === 403) {
      return { ok: false, reason: 'forbidden', detail: `${error.status} ${error.message}` };
    }
    return { ok: false, reason: 'failed', detail: `${error.status} ${error.message}` };
  }
  return { ok: false, reason: 'failed', detail: error instanceof Error ? error.message : String(error) };
}

export function createChannelPoster(client: Client): ChannelPoster {
  return {
    async channel(channelId) {
      try {
        const channel = await client.channels.fetch(channelId);
        if (channel?.isThread() && channel.parentId !== null && channel.parent === null) {
          await client.channels.fetch(channel.parentId);
        }
        return channel;
      } catch (error) {
        const result = refusal(error);
        if (!result.ok && result.reason === 'missing') return null;
        throw error;
      }
    },
    async post(channelId, body, nonce) {
      if (nonce.length === 0 || nonce.length > NONCE_MAX)
        throw new RangeError(`a nonce of 1 to ${NONCE_MAX} characters`);
      const shaped = outgoing(body);
      try {
        const message = (await client.rest.post(Routes.channelMessages(channelId), {
          body: {
            ...(shaped.content === undefined ? {} : { content: shaped.content }),
            ...(shaped.embeds === undefined ? {} : { embeds: shaped.embeds }),
            ...(shaped.components === undefined ? {} : { components: shaped.components }),
            allowed_mentions: shaped.allowedMentions,
            nonce,
            enforce_nonce: true,
          },
        })) as { id: string };
        return { ok: true, messageId: message.id };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}
