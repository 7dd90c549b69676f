/**
 * Secret scrubbing for the application (logger, deploy script). The redactor belongs to the Philomena
 * library (src/philomena/redact.ts: the key in `key=` parameters, any listed secret in raw, URL-encoded or
 * JSON-escaped form, Discord interaction and webhook tokens in URL paths); the bot uses the same one, so
 * what the library scrubs from its errors and what the bot scrubs from its logs cannot drift apart.
 */
export { createRedactor, REDACTED, redactUrl, scrubError } from './philomena/redact.js';
