/**
 * Short-lived state behind buttons, kept in the store under short random tokens with a lifetime. A token
 * that is gone (expired, or the store was memory and the bot restarted) reads as undefined: "expired".
 */
import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import type { z } from 'zod';

/** How long paging buttons keep working: Discord's interaction tokens live 15 minutes too. */
export const STATE_TTL_MS = 15 * 60 * 1000;

export interface ButtonState {
  /** Stores `value` and returns its token (8 URL-safe characters). */
  put(kind: string, value: unknown, ttlMs?: number): Promise<string>;
  /** The value under `token` if it is still there and fits `schema`. */
  get<T extends z.ZodType>(kind: string, token: string, schema: T): Promise<z.infer<T> | undefined>;
}

/** The shape of a token, checked before a store read. */
export const STATE_TOKEN = /^[A-Za-z0-9_-]{8}$/;

export function createButtonState(store: Keyv, options: { newToken?: () => string } = {}): ButtonState {
  const newToken = options.newToken ?? (() => randomBytes(6).toString('base64url'));
  const keyOf = (kind: string, token: string) => `state:${kind}:${token}`;
  return {
    async put(kind, value, ttlMs = STATE_TTL_MS) {
      const token = newToken();
      await store.set(keyOf(kind, token), value, ttlMs);
      return token;
    },
    async get(kind, token, schema) {
      if (!STATE_TOKEN.test(token)) return undefined;
      const raw: unknown = await store.get(keyOf(kind, token));
      if (raw === undefined) return undefined;
      const parsed = schema.safeParse(raw);
      return parsed.success ? parsed.data : undefined;
    },
  };
}
