/**
 * The pino logger. Secrets are removed twice: known fields are redacted by path, and every serialised line
 * passes through a scrubber that removes the secret values themselves and any `key=` query parameter,
 * wherever they hide (error messages, URLs, nested objects).
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { createRedactor } from './redact.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  readonly level?: Level | 'silent';
  /** Values that must never appear in a log line (the Discord token, the board key). */
  readonly secrets?: readonly (string | undefined)[];
  /** Where lines go; stdout by default. Tests pass an in-memory stream. */
  readonly destination?: DestinationStream;
}

const REDACT_PATHS = [
  'key',
  'token',
  'apiKey',
  'discordToken',
  'boorukey',
  '*.key',
  '*.token',
  '*.apiKey',
  '*.discordToken',
  'headers.authorization',
  '*.headers.authorization',
  'config.booruApiKey',
  'config.memberKeySecret',
  'config.memberKeySecretPrevious',
  'config.discordToken',
];

export function createLogger(options: LoggerOptions = {}): Logger {
  const scrub = createRedactor(options.secrets ?? []);
  const target: DestinationStream = options.destination ?? pino.destination({ dest: 1, sync: false });
  const destination: DestinationStream = {
    write(line: string) {
      target.write(scrub(line));
    },
  };
  return pino(
    {
      level: options.level ?? 'info',
      base: { app: 'philomena-bot' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    destination,
  );
}
