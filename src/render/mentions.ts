/**
 * `allowed_mentions` for every message the bot sends: nothing pings, whatever the text says. Board text
 * is also neutralised (see markdown.ts), so a mention would not even render if this were ever missing.
 *
 * Typed as the empty tuple (not `readonly []`) so it fits both discord.js options and raw API JSON.
 */
export const NO_MENTIONS: { readonly parse: [] } = Object.freeze({ parse: [] });
