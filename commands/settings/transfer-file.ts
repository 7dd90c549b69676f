/**
 * The settings file of `/settings export` and `/settings import` (issue 20 §4): a versioned JSON document
 * holding one server's settings record (in its canonical stored form) and its feeds, and nothing else: no
 * secret, no member (who created a feed is left out). Reading one never throws, whatever the bytes: every
 * way a file can be wrong becomes a UserFacingError naming the first thing wrong, before anything is
 * changed.
 */
import { z } from 'zod';
import type { OutgoingFile } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { truncate } from '../../src/render/index.js';
import {
  guildRecordOf,
  guildRecordSchema,
  storedGuildRecord,
  type GuildSettingsRecord,
} from '../shared/guild-settings.js';
import { QUERY_MAX } from '../shared/query-autocomplete.js';
import { sayEnglish, type Say } from '../shared/say.js';
import { importProblem } from './transfer-issues.js';

export const TRANSFER_FORMAT = 'philomena-bot/settings';
/** The newest version this bot writes and reads; a file of a newer one is refused, not guessed at. */
const TRANSFER_VERSION = 1;
/** Far above any real file (100 channels of 200 tags each is about 400 KiB of tag names at worst). */
export const TRANSFER_FILE_MAX_BYTES = 512 * 1024;

/** One feed as a file carries it: what it follows and where, not its cursor or who made it. */
export interface FileFeed {
  readonly channelId: string;
  readonly siteId: string;
  readonly query: string;
  readonly paused: boolean;
}

export interface TransferFile {
  readonly exportedAt: string;
  readonly server: { readonly id: string; readonly name?: string | undefined };
  readonly settings: GuildSettingsRecord;
  readonly feeds: readonly FileFeed[];
}

const snowflake = z.string().regex(/^\d{1,20}$/, 'not a Discord id');

const feedSchema = z.object({
  channelId: snowflake,
  siteId: z.string().min(1).max(100),
  query: z
    .string()
    .transform((query) => query.trim())
    .pipe(z.string().min(1, 'an empty query').max(QUERY_MAX)),
  paused: z.boolean(),
});

function fileSchema(feedsMax: number) {
  return z.object({
    format: z.literal(TRANSFER_FORMAT),
    version: z.literal(TRANSFER_VERSION),
    exportedAt: z.iso.datetime({ offset: true }),
    server: z.object({ id: snowflake, name: z.string().max(100).optional() }),
    settings: guildRecordSchema,
    feeds: z.array(feedSchema).max(feedsMax, `at most ${feedsMax} feeds (this server's limit)`),
  });
}

/** The export of a server: its file, named `settings-<server id>-<yyyy-mm-dd>.json`. */
export function exportFile(input: {
  readonly guildId: string;
  readonly guildName: string | undefined;
  readonly record: GuildSettingsRecord;
  readonly feeds: readonly FileFeed[];
  readonly now: number;
}): OutgoingFile {
  const exportedAt = new Date(input.now).toISOString();
  const document = {
    format: TRANSFER_FORMAT,
    version: TRANSFER_VERSION,
    exportedAt,
    server: {
      id: input.guildId,
      ...(input.guildName === undefined ? {} : { name: truncate(input.guildName, 100) }),
    },
    settings: storedGuildRecord(input.record),
    feeds: input.feeds.map(({ channelId, siteId, query, paused }) => ({ channelId, siteId, query, paused })),
  };
  return {
    name: `settings-${input.guildId}-${exportedAt.slice(0, 10)}.json`,
    data: Buffer.from(`${JSON.stringify(document, null, 2)}\n`, 'utf8'),
    description: 'Server settings and feeds (philomena-bot)',
  };
}

const versionSchema = z.object({ version: z.number().int().positive() });

/**
 * The file's content, or the error to tell the member; never throws. `feedsMax` is the server's feed
 * limit (what `/feed add` allows); `say` is the member's language, which the params of a refusal are in
 * (its text stays English, as every UserFacingError's: the runtime reads the catalogue by its id).
 */
export function readTransferFile(
  bytes: Uint8Array,
  feedsMax: number,
  say: Say = sayEnglish,
): TransferFile | UserFacingError {
  if (bytes.byteLength > TRANSFER_FILE_MAX_BYTES) {
    return new UserFacingError(
      'settings.import.too-large',
      `That file is too large for a settings file (at most ${TRANSFER_FILE_MAX_BYTES / 1024} KiB).`,
      { params: { kib: TRANSFER_FILE_MAX_BYTES / 1024 } },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return new UserFacingError(
      'settings.import.not-json',
      'That file is not a settings file: it is not JSON text. Use a file made by /settings export.',
    );
  }
  const format = z.object({ format: z.literal(TRANSFER_FORMAT) }).safeParse(data);
  if (!format.success) {
    return new UserFacingError(
      'settings.import.not-ours',
      'That is not a philomena-bot settings file. Use a file made by /settings export.',
    );
  }
  const version = versionSchema.safeParse(data);
  if (version.success && version.data.version > TRANSFER_VERSION) {
    return new UserFacingError(
      'settings.import.newer',
      `That file was made by a newer version of the bot (file version ${version.data.version}; this one reads up to ${TRANSFER_VERSION}): update the bot first.`,
      { params: { version: version.data.version, known: TRANSFER_VERSION } },
    );
  }
  const parsed = fileSchema(feedsMax).safeParse(data);
  if (!parsed.success) {
    // Never zod's own message: it is English written for developers (transfer-issues.ts).
    const issue = parsed.error.issues[0];
    const english = importProblem(issue, data, sayEnglish);
    const local = importProblem(issue, data, say);
    return new UserFacingError(
      'settings.import.invalid',
      `That settings file cannot be imported: ${english.path} is wrong (${english.what}). Nothing was changed.`,
      { params: { path: local.path, what: local.what } },
    );
  }
  const { exportedAt, server, settings, feeds } = parsed.data;
  return { exportedAt, server, settings: guildRecordOf(settings), feeds };
}
