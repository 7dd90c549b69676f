/**
 * Secret scrubbing. The board key travels in query strings (`key=`), so it ends up in URLs: every URL or
 * text that may reach a log line, an error message or Discord goes through `redactText` first.
 */

export const REDACTED = '[REDACTED]';

const KEY_PARAM = /([?&;](?:key|api_key|token)=)[^&#\s"'<>]*/gi;

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
    let out = text.replace(KEY_PARAM, `$1${REDACTED}`);
    for (const secret of encoded) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  };
}

/** Only the `key=` query parameter, for URLs built without access to the secrets list. */
export function redactUrl(url: string): string {
  return url.replace(KEY_PARAM, `$1${REDACTED}`);
}
