/**
 * Secret scrubbing. The board key travels in query strings (`key=`), so it ends up in URLs: every URL or
 * text that may reach a log line, an error message or Discord goes through `redactText` first.
 *
 * Interaction tokens travel in URL paths (`/webhooks/<app id>/<token>/...`,
 * `/interactions/<id>/<token>/callback`) and discord.js errors carry that URL: for their 15 minutes a
 * token lets whoever reads it post as the bot in that channel, so those path segments are scrubbed too.
 */

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
