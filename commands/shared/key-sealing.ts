/**
 * Sealing members' board keys (issue 22: "keys are encrypted at rest"): AES-256-GCM from node:crypto, a
 * fresh 12-byte random nonce on every seal, and the member's Discord id and the site's id bound in as
 * associated data, so a sealed key copied onto another member or another site fails to open instead of
 * lending one member's account to someone else. What is stored is `SealedKey`: base64 fields and a format
 * version; without the operator's secret it reveals nothing of the key but its length.
 *
 * The secrets are the operator's MEMBER_KEY_SECRET (sealing and opening) and MEMBER_KEY_SECRET_PREVIOUS
 * (opening only, during a rotation), 32 random bytes in base64 as src/config.ts checks them. The AES key is
 * derived from a secret with HKDF under this purpose's own label, so a secret pasted into some other
 * program's setting by mistake still never yields the same key there.
 *
 * Plain keys leave this module only inside `MemberKey`, whose text, JSON and inspected forms say
 * "[member key]": a key that reaches a log line, an error or a message by accident shows nothing.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { z } from 'zod';

/** The format `seal` writes; `open` refuses any other (a future format brings its own reader). */
const SEALED_KEY_VERSION = 1;

const SECRET_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF's `info`: what the derived key is for, and the format it seals. */
const KEY_PURPOSE = `philomena-bot member board keys v${SEALED_KEY_VERSION}`;

/** Standard base64 of exactly `bytes` bytes (as Node writes it), so a damaged field is refused before use. */
const base64Of = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]*={0,2}$/)
    .refine((text) => Buffer.from(text, 'base64').toString('base64') === text)
    .refine((text) => Buffer.from(text, 'base64').length === bytes);

/** A sealed key as stored. Base64 fields, so every store (SQLite, Redis, memory) keeps it as plain JSON. */
export const sealedKeySchema = z.object({
  v: z.literal(SEALED_KEY_VERSION),
  nonce: base64Of(NONCE_BYTES),
  /** The key encrypted (as long as the key: GCM adds no padding). */
  data: z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/)
    .max(1_000),
  tag: base64Of(TAG_BYTES),
});
export type SealedKey = z.output<typeof sealedKeySchema>;

/**
 * A member's plain board key. Its value is a private field: spread, JSON, `String()` and `util.inspect`
 * show "[member key]", never the key; only `reveal()` gives it, at the one place a request is built.
 */
export class MemberKey {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The key itself: for the request to the member's own site, never for text. */
  reveal(): string {
    return this.#value;
  }
  /** The last four characters, which `/me show` may say (issue 22 §1). */
  get hint(): string {
    return this.#value.slice(-4);
  }
  toString(): string {
    return '[member key]';
  }
  toJSON(): string {
    return '[member key]';
  }
  [inspect.custom](): string {
    return '[member key]';
  }
}

/** Which secret opened a sealed key: `previous` means it should be sealed again under the current one. */
export type OpenedWith = 'current' | 'previous';

export interface KeySealer {
  /** Seals `key` for `userId` on `siteId` under the current secret, with a fresh nonce. */
  seal(userId: string, siteId: string, key: MemberKey): SealedKey;
  /**
   * The key sealed for `userId` on `siteId`, and which secret opened it; undefined when neither secret
   * opens it (another secret, another member or site, a damaged record).
   */
  open(
    userId: string,
    siteId: string,
    sealed: SealedKey,
  ): { readonly key: MemberKey; readonly openedWith: OpenedWith } | undefined;
}

/** The operator's secrets as config keeps them (base64 text, checked by src/config.ts). */
export interface SealingSecrets {
  readonly current: string;
  readonly previous?: string | undefined;
}

/** The AES key of one secret. Throws (without the value) on a secret that is not 32 bytes of base64. */
function aesKeyOf(secret: string, name: string): Buffer {
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length !== SECRET_BYTES || bytes.toString('base64') !== secret) {
    throw new TypeError(
      `${name} must be ${SECRET_BYTES} bytes in base64 (as openssl rand -base64 32 prints)`,
    );
  }
  return Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), KEY_PURPOSE, SECRET_BYTES));
}

/**
 * The associated data: the format, the member and the site, as JSON so no choice of ids can make two
 * different pairs read as the same bytes.
 */
function boundTo(userId: string, siteId: string): Buffer {
  return Buffer.from(JSON.stringify([KEY_PURPOSE, userId, siteId]), 'utf8');
}

function openWith(aesKey: Buffer, aad: Buffer, sealed: SealedKey): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey, Buffer.from(sealed.nonce, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(aad);
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return plain.toString('utf8');
  } catch {
    // GCM's "unable to authenticate data": another secret, member or site, or a changed byte. Its message
    // holds nothing of the key; the caller says what it means.
    return undefined;
  }
}

/** A sealer over the operator's secrets (decoded once; the AES keys live only in this closure). */
export function createKeySealer(secrets: SealingSecrets): KeySealer {
  const current = aesKeyOf(secrets.current, 'MEMBER_KEY_SECRET');
  const previous =
    secrets.previous === undefined || secrets.previous === secrets.current
      ? undefined
      : aesKeyOf(secrets.previous, 'MEMBER_KEY_SECRET_PREVIOUS');
  return {
    seal(userId, siteId, key) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(boundTo(userId, siteId));
      const data = Buffer.concat([cipher.update(key.reveal(), 'utf8'), cipher.final()]);
      return {
        v: SEALED_KEY_VERSION,
        nonce: nonce.toString('base64'),
        data: data.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    },
    open(userId, siteId, sealed) {
      const aad = boundTo(userId, siteId);
      const byCurrent = openWith(current, aad, sealed);
      if (byCurrent !== undefined) return { key: new MemberKey(byCurrent), openedWith: 'current' };
      if (previous === undefined) return undefined;
      const byPrevious = openWith(previous, aad, sealed);
      return byPrevious === undefined
        ? undefined
        : { key: new MemberKey(byPrevious), openedWith: 'previous' };
    },
  };
}
