/**
 * Secret scrubbing. The board key travels in query strings (`key=`), so it ends up in URLs: every URL or
 * text that may reach a log line or an error message goes through a redactor first.
 *
 * Interaction tokens travel in URL paths (`/webhooks/<app id>/<token>/...`,
 * `/interactions/<id>/<token>/callback`): for their 15 minutes a token lets whoever reads it post as a
 * Discord bot in that channel. The client is handed URLs it did not make (a reverse search by URL), so
 * those path segments are scrubbed too, and the application uses this same redactor for its own logs.
 */
import { systemErrorCode } from './errors.js';

export const REDACTED = '[REDACTED]';

const KEY_PARAM = /([?&;](?:key|api_key|token)=)[^&#\s"'<>]*/gi;
/** The token segment after a webhook or interaction id, in a URL or a route (`/webhooks/1/abc.DEF-_`). */
const TOKEN_PATH = /(\/(?:webhooks|interactions)\/\d+\/)[^/?#\s"'<>\\]+/gi;

function scrubParams(text: string): string {
  return text.replace(KEY_PARAM, `$1${REDACTED}`).replace(TOKEN_PATH, `$1${REDACTED}`);
}

/** A scrubber for a fixed set of secrets (empty and very short values are ignored). */
export function createRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const values = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4)),
  ].sort((a, b) => b.length - a.length);
  const encoded = values.flatMap((s) => {
    const forms = new Set([s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1)]);
    return [...forms];
  });
  return (text: string): string => {
    let out = scrubParams(text);
    for (const secret of encoded) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  };
}

/** Only the `key=` query parameter and interaction tokens, for URLs built without the secrets list. */
export function redactUrl(url: string): string {
  return scrubParams(url);
}

/**
 * A stand-in for `error` that keeps only its redacted message, its name and a string `code`: no cause
 * chain. Errors from undici can quote the URL (and with it the key) in their message or anywhere down
 * their `cause` chain.
 */
export function scrubError(error: unknown, redact: (text: string) => string): Error {
  const message = error instanceof Error ? error.message : String(error);
  const code = systemErrorCode(error);
  // A fresh Error: its stack is built from the redacted message, and it has no cause.
  const scrubbed = new Error(redact(message));
  if (error instanceof Error && error.name !== 'Error') {
    Object.defineProperty(scrubbed, 'name', { value: error.name, enumerable: false, configurable: true });
  }
  return Object.assign(scrubbed, typeof code === 'string' ? { code } : {});
}
