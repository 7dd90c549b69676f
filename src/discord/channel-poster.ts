/**
 * Posting to a channel on the bot's own initiative (feeds) through the one writer (outbox.ts
 * `postToChannel`, so nothing pings anyone), and reading a channel as a poster must know it.
 *
 * A post carries a `nonce` with `enforce_nonce`: Discord then creates at most one message per nonce in a
 * channel for a few minutes, so a send retried after a crash or a lost answer posts nothing twice.
 *
 * Discord's refusals come back as values the caller can act on: the channel is gone (404, Unknown Channel)
 * or the bot may not post there (403: Missing Access, Missing Permissions). Anything else (5xx after the
 * REST client's retries, a network failure) is `failed`: try again later.
 */
import { DiscordAPIError, Routes, type Channel, type Client } from 'discord.js';
import { z } from 'zod';
import type { ChannelFacts, ChannelPoster, PostResult } from './contract.js';
import { postToChannel } from './outbox.js';
import type { ServerDirectory } from './server-facts.js';

// The poster's types live in the contract (features get a poster from it); named here too for their readers.
export type { ChannelFacts, ChannelPoster, PostResult } from './contract.js';

/** Discord's nonce: at most 25 characters. */
const NONCE_MAX = 25;

/**
 * Discord refused to show the bot a channel (403: Missing Access, Missing Permissions): the bot was removed
 * from its server or may not see it. Every such answer counts toward Discord's invalid-request limit (10,000
 * per 10 minutes per IP, then a ban of the whole host), so a caller must not ask again soon.
 */
export class ChannelForbiddenError extends Error {
  override get name(): string {
    return 'ChannelForbiddenError';
  }
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

function nsfwOf(channel: Channel): boolean {
  return 'nsfw' in channel && channel.nsfw === true;
}

function flagsOf(channel: Channel): number {
  return 'flags' in channel ? (channel.flags?.bitfield ?? 0) : 0;
}

/** How long a server's locale read from Discord is kept (a server this process does not hold). */
const GUILD_LOCALE_TTL_MS = 10 * 60_000;
/** Servers whose locale is kept at most (least recently read out first). */
const GUILD_LOCALES_KEPT = 5_000;

const guildLocaleSchema = z.object({ preferred_locale: z.string().max(20) });

export function createChannelPoster(
  client: Client,
  options: { readonly now?: () => number; readonly servers?: ServerDirectory } = {},
): ChannelPoster {
  const now = options.now ?? Date.now;
  const { servers } = options;
  /** Locales of servers this process does not hold, as Discord said them (null: it would not say). */
  const locales = new Map<string, { readonly locale: string | null; readonly until: number }>();

  /** GET /guilds/:id: the server's preferred locale, or null when Discord refuses or fails. */
  async function readLocale(guildId: string): Promise<string | null> {
    try {
      const parsed = guildLocaleSchema.safeParse(await client.rest.get(Routes.guild(guildId)));
      return parsed.success ? parsed.data.preferred_locale : null;
    } catch {
      // Kept as unknown for the while as well: a refusal asked again each round counts toward Discord's
      // invalid-request limit, and English is what the post falls back to anyway.
      return null;
    }
  }

  /**
   * A channel the bot's facts do not have (a server this process does not hold, an archived thread) comes
   * from Discord each time (`allowUnknownGuild`; discord.js keeps no channel), so what it says is never
   * older than this read.
   */
  async function read(channelId: string): Promise<Channel | null> {
    try {
      return await client.channels.fetch(channelId, { allowUnknownGuild: true, force: true });
    } catch (error) {
      const result = refusal(error);
      if (!result.ok && result.reason === 'missing') return null;
      if (!result.ok && result.reason === 'forbidden') throw new ChannelForbiddenError(result.detail);
      throw error;
    }
  }

  return {
    holds(guildId) {
      return servers?.holds(guildId) ?? false;
    },
    async guildLocale(guildId) {
      const held = servers?.server(guildId);
      if (held !== undefined) return held.locale;
      const kept = locales.get(guildId);
      if (kept !== undefined && kept.until > now()) return kept.locale;
      const locale = await readLocale(guildId);
      locales.delete(guildId);
      locales.set(guildId, { locale, until: now() + GUILD_LOCALE_TTL_MS });
      if (locales.size > GUILD_LOCALES_KEPT) {
        const oldest = locales.keys().next();
        if (!oldest.done) locales.delete(oldest.value);
      }
      return locale;
    },
    async channel(channelId, guildId) {
      // A server this process holds: its events keep the facts current, so no request to Discord.
      const known = guildId === undefined ? undefined : servers?.server(guildId)?.channel(channelId);
      if (known !== undefined) {
        const { botPermissions: _, ...facts } = known;
        return facts;
      }
      const channel = await read(channelId);
      if (channel === null) return null;
      let parent: ChannelFacts['parent'] = null;
      if (channel.isThread() && channel.parentId !== null) {
        // Not `channel.parent`: that getter goes through the thread's guild, which discord.js keeps none of.
        const held = guildId === undefined ? undefined : servers?.server(guildId)?.channel(channel.parentId);
        const owner = held ?? (await read(channel.parentId));
        parent =
          owner === null
            ? null
            : 'botPermissions' in owner
              ? { type: owner.type, nsfw: owner.nsfw, flags: owner.flags }
              : { type: owner.type, nsfw: nsfwOf(owner), flags: flagsOf(owner) };
      }
      return {
        id: channel.id,
        type: channel.type,
        nsfw: nsfwOf(channel),
        flags: flagsOf(channel),
        parent,
        parentId: channel.isThread() ? channel.parentId : null,
      };
    },
    async post(channelId, body, nonce) {
      if (nonce.length === 0 || nonce.length > NONCE_MAX)
        throw new RangeError(`a nonce of 1 to ${NONCE_MAX} characters`);
      try {
        return { ok: true, messageId: await postToChannel(client.rest, channelId, body, nonce) };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}
