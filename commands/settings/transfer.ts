/**
 * `/settings export` and `/settings import file:` (issue 20 §4): a server's settings and feeds as one
 * versioned JSON file (transfer-file.ts), and the way back: the file is read completely, fitted to this
 * server (transfer-plan.ts), shown as a preview with Apply and Cancel, and applied on Apply as ONE atomic
 * write of the settings record, the feeds record and the feeds index (`RecordStore.updateMany`), so an
 * import is either all there or not at all, from any process.
 *
 * The plan waits in ButtonState (15 minutes) under a token in the buttons' custom_id, with the member who
 * asked, who alone may press them. Apply reads the server's feeds again: a feed the file has with the same
 * channel, site and query keeps its id and cursor; a new one starts at the site's newest image (as
 * `/feed add` does), read from the board before the write.
 */
import { ButtonStyle, ChannelType, ComponentType, type ChatInputCommandInteraction } from 'discord.js';
import type Keyv from 'keyv';
import { z } from 'zod';
import type { Incoming, KnownChannel, KnownServer, Reply } from '../../src/discord/contract.js';
import { buttonCodec, segment } from '../../src/discord/custom-id.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { BadQueryError, SettingsUnavailableError, StoreAccessError } from '../../src/errors.js';
import type { Translator } from '../../src/i18n/index.js';
import { escapeMarkdown, MESSAGE_CONTENT_MAX, truncate, truncateMarkdown } from '../../src/render/index.js';
import { recordStoreOf, type RecordStore } from '../../src/store/index.js';
import type { ButtonHandler, CommandContext } from '../shared/context.js';
import { readAll } from '../shared/download.js';
import {
  guildRecordOf,
  guildRecordSchema,
  guildSettingsKey,
  storedGuildRecord,
  type GuildSettingsRecord,
} from '../shared/guild-settings.js';
import { isAgeRestrictedChannel, safeSearchQuery } from '../shared/safety.js';
import { sayIn, type Say } from '../shared/say.js';
import { textReply } from '../shared/text-reply.js';
import { exportFile, readTransferFile, TRANSFER_FILE_MAX_BYTES, type FileFeed } from './transfer-file.js';
import { planImport, previewText } from './transfer-plan.js';
import { settingsGuildOf } from './scope.js';

type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
) => Promise<Reply>;

/** A feed as the feed store keeps it, as far as an import reads it. */
interface StoredFeed {
  readonly channelId: string;
  readonly siteId: string;
  readonly query: string;
  readonly cursor: number;
  readonly paused?: unknown;
}

/** A feed for the feed store to add (commands/feed/feed-store.ts `Omit<Feed, 'id'>`). */
interface FeedDraft {
  readonly guildId: string;
  readonly channelId: string;
  readonly siteId: string;
  readonly query: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly cursor: number;
  readonly paused?: { readonly reason: 'admin'; readonly detail: string; readonly at: number };
  readonly ageRestricted?: boolean;
}

/**
 * What an import needs of the feed store: `FeedStore` (commands/feed/feed-store.ts) is one. Declared here
 * because a feature imports no other feature (eslint/layers.js).
 */
export interface TransferFeeds {
  list(guildId: string): Promise<readonly StoredFeed[]>;
  replacement(
    guildId: string,
    wanted: readonly FeedDraft[],
  ): {
    readonly keys: readonly string[];
    change(currents: readonly unknown[]): {
      readonly nexts: readonly unknown[];
      readonly feeds: readonly unknown[];
    };
  };
}

export interface SettingsTransferDeps {
  readonly store: Keyv;
  readonly feeds: TransferFeeds;
  /** The most feeds a server may have (FEEDS_PER_SERVER): a file with more is refused. */
  readonly perServer: number;
  /** The answers' words; the shipped catalogues unless a test gives others (the pseudo-locale). */
  readonly translator?: Translator;
}

const STATE_KIND = 'settings-import';

const importCodec = buttonCodec<'apply' | 'cancel', { readonly token: string; readonly owner: string }>({
  namespace: 'setimp',
  schema: z.tuple([segment.token, segment.snowflake]).transform(([token, owner]) => ({ token, owner })),
  write: ({ token, owner }) => [token, owner],
});

const fileFeedSchema = z.object({
  channelId: z.string(),
  siteId: z.string(),
  query: z.string(),
  paused: z.boolean(),
});
const pendingSchema = z.object({
  guildId: z.string(),
  settings: guildRecordSchema,
  feeds: z.array(fileFeedSchema),
});

/** Channels that can hold settings of their own (threads follow their parent). */
const SETTINGS_TYPES: ReadonlySet<ChannelType> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildForum,
  ChannelType.GuildMedia,
  ChannelType.GuildVoice,
  ChannelType.GuildStageVoice,
]);

/** Channels a feed can post into: what `/feed add` accepts (commands/feed/feed.ts), threads included. */
const FEED_TYPES: ReadonlySet<ChannelType> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
  ChannelType.GuildVoice,
]);

const THREADS: ReadonlySet<ChannelType> = new Set([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

function targetChannels(
  server: KnownServer | undefined,
  types: ReadonlySet<ChannelType>,
): Map<string, KnownChannel> {
  const out = new Map<string, KnownChannel>();
  for (const channel of server?.channels() ?? []) {
    if (types.has(channel.type)) out.set(channel.id, channel);
  }
  return out;
}

const asFileFeed = (feed: StoredFeed): FileFeed => ({
  channelId: feed.channelId,
  siteId: feed.siteId,
  query: feed.query,
  paused: feed.paused !== undefined,
});

const sameFeed = (a: FileFeed, b: FileFeed): boolean =>
  a.channelId === b.channelId && a.siteId === b.siteId && a.query === b.query;

/** A feed store failure told as the settings store's (the same store), which members already know. */
async function readFeeds(feeds: TransferFeeds, guildId: string): Promise<readonly StoredFeed[]> {
  try {
    return await feeds.list(guildId);
  } catch (error) {
    if (error instanceof StoreAccessError)
      throw new SettingsUnavailableError('read', guildId, { cause: error });
    throw error;
  }
}

export interface ApplyInput {
  readonly guildId: string;
  /** The member who imports: the creator of the feeds the import adds. */
  readonly memberId: string;
  readonly settings: GuildSettingsRecord;
  readonly feeds: readonly FileFeed[];
  readonly now: number;
  /** Where a new feed starts: the id of the site's newest image (read from the board). */
  readonly startingCursor: (feed: FileFeed) => Promise<number>;
  readonly ageRestricted: (channelId: string) => boolean;
}

/**
 * Writes the import as one atomic step: the server's record becomes `settings`, its feeds `feeds`, the
 * index follows. The cursors of new feeds are read first (board calls never run inside the write). A
 * store failure rejects with `settings.import.store-failed`, and nothing was written.
 */
export async function applyImport(
  deps: { readonly records: RecordStore; readonly feeds: TransferFeeds },
  input: ApplyInput,
): Promise<{ readonly feeds: number }> {
  const { guildId } = input;
  const current = await readFeeds(deps.feeds, guildId);
  // Every wanted feed gets a cursor: the one it has now, or the board's newest for a new one (also used
  // if the feed it matched is removed before the write lands).
  const cursors = await Promise.all(
    input.feeds.map(async (feed) => {
      const had = current.find((stored) => sameFeed(asFileFeed(stored), feed));
      return had?.cursor ?? input.startingCursor(feed);
    }),
  );
  const drafts = input.feeds.map((feed, i): FeedDraft => ({
    guildId,
    channelId: feed.channelId,
    siteId: feed.siteId,
    query: feed.query,
    createdBy: input.memberId,
    createdAt: input.now,
    cursor: cursors[i] ?? 0,
    ageRestricted: input.ageRestricted(feed.channelId),
    ...(feed.paused
      ? { paused: { reason: 'admin', detail: 'paused in the imported file', at: input.now } }
      : {}),
  }));
  const part = deps.feeds.replacement(guildId, drafts);
  const settings = storedGuildRecord(input.settings);
  let written = 0;
  try {
    await deps.records.updateMany([guildSettingsKey(guildId), ...part.keys], ([, ...rest]) => {
      const { nexts, feeds } = part.change(rest);
      written = feeds.length;
      return [settings, ...nexts];
    });
  } catch (error) {
    if (!(error instanceof StoreAccessError)) throw error;
    throw new UserFacingError(
      'settings.import.store-failed',
      'The settings store could not be written just now, so nothing was changed. Try again in a moment.',
      { cause: error },
    );
  }
  return { feeds: written };
}

export function createSettingsTransfer(deps: SettingsTransferDeps): {
  readonly export: Subcommand;
  readonly import: Subcommand;
  readonly buttons: Readonly<Record<string, ButtonHandler>>;
} {
  const records = recordStoreOf(deps.store);
  /** The member's language: every answer of export and import is in it (errors through their ids). */
  const sayTo = (locale: string): Say => sayIn(locale, deps.translator);

  const exportSettings: Subcommand = async (interaction, context, guildId) => {
    const record = await context.settings.get(guildId);
    const feeds = (await readFeeds(deps.feeds, guildId)).map(asFileFeed);
    const file = exportFile({
      guildId,
      guildName: context.server?.name,
      record,
      feeds,
      now: context.now(),
    });
    const channels = Object.keys(record.channels ?? {}).length;
    const say = sayTo(context.locale);
    return {
      kind: 'message',
      body: {
        content: say('transfer.export.done', { channels, feeds: feeds.length }),
        embeds: [],
        components: [],
        // The file's name stays as it is (ASCII, the same in every language); its description is read.
        files: [{ ...file, description: say('transfer.export.file-description') }],
      },
    };
  };

  async function readUpload(interaction: Incoming<ChatInputCommandInteraction>, context: CommandContext) {
    const attachment = interaction.options.getAttachment('file', true);
    const tooLarge = new UserFacingError(
      'settings.import.too-large',
      `That file is too large for a settings file (at most ${TRANSFER_FILE_MAX_BYTES / 1024} KiB).`,
      { params: { kib: TRANSFER_FILE_MAX_BYTES / 1024 } },
    );
    if (attachment.size > TRANSFER_FILE_MAX_BYTES) throw tooLarge;
    try {
      return await readAll(await context.download(attachment.url, { maxBytes: TRANSFER_FILE_MAX_BYTES }));
    } catch (error) {
      // The download's own text counts megabytes, which says "0 MB" of this cap.
      if (error instanceof UserFacingError && error.id === 'file.too-large') throw tooLarge;
      throw error;
    }
  }

  const importSettings: Subcommand = async (interaction, context, guildId) => {
    const say = sayTo(context.locale);
    const file = readTransferFile(await readUpload(interaction, context), deps.perServer, say);
    if (file instanceof UserFacingError) throw file;
    const plan = planImport(file, {
      channelIds: new Set(targetChannels(context.server, SETTINGS_TYPES).keys()),
      feedChannelIds: new Set(targetChannels(context.server, FEED_TYPES).keys()),
      knownSite: (id) => context.sites.byId(id) !== undefined,
    });
    const now = {
      settings: await context.settings.get(guildId),
      feeds: (await readFeeds(deps.feeds, guildId)).map(asFileFeed),
    };
    const siteName = (id: string | undefined): string => {
      const site = id === undefined ? context.sites.defaultSite : context.sites.byId(id);
      return escapeMarkdown(truncate(site?.name ?? id ?? say('transfer.site.default'), 60));
    };
    const token = await context.state.put(STATE_KIND, {
      guildId,
      settings: storedGuildRecord(plan.settings),
      feeds: plan.feeds,
    });
    const owner = interaction.user.id;
    // The export's day as Discord shows a date to each reader (the file's time is UTC, the reader's is not).
    const date = `<t:${Math.floor(Date.parse(file.exportedAt) / 1000)}:d>`;
    const head =
      file.server.id === guildId
        ? say('transfer.import.head-this-server', { date })
        : say('transfer.import.head-other-server', { server: file.server.id, date });
    return {
      kind: 'message',
      body: {
        content: truncateMarkdown(
          previewText(plan, now, siteName, { say, lead: `${head}\n` }),
          MESSAGE_CONTENT_MAX,
        ),
        embeds: [],
        components: [
          {
            type: ComponentType.ActionRow,
            components: [
              {
                type: ComponentType.Button,
                style: ButtonStyle.Danger,
                label: say('transfer.button.apply'),
                custom_id: importCodec.encode('apply', { token, owner }),
              },
              {
                type: ComponentType.Button,
                style: ButtonStyle.Secondary,
                label: say('transfer.button.cancel'),
                custom_id: importCodec.encode('cancel', { token, owner }),
              },
            ],
          },
        ],
      },
    };
  };

  /** The member who asked, or a refusal: only they may confirm or cancel their import. */
  function ownerCheck(args: readonly string[], memberId: string) {
    const fields = importCodec.decode(args);
    if (fields !== undefined && fields.owner !== memberId) {
      throw new UserFacingError(
        'settings.import.not-yours',
        'This import is not yours: only the member who ran /settings import can apply or cancel it.',
      );
    }
    return fields;
  }

  const apply: ButtonHandler = {
    defer: (interaction, args) =>
      importCodec.decode(args)?.owner === interaction.user.id ? 'update' : 'ephemeral',
    async run(interaction, args, context) {
      const fields = ownerCheck(args, interaction.user.id);
      // Permissions can change in the 15 minutes a preview waits: the press is checked as every control is.
      settingsGuildOf(interaction);
      const pending =
        fields === undefined ? undefined : await context.state.get(STATE_KIND, fields.token, pendingSchema);
      if (pending === undefined || pending.guildId !== interaction.guildId) {
        return { kind: 'expired', text: sayTo(context.locale)('transfer.import.expired') };
      }
      const settings = guildRecordOf(pending.settings);
      const channels = targetChannels(context.server, FEED_TYPES);
      const cursorOf = async (feed: FileFeed): Promise<number> => {
        const site = context.sites.byId(feed.siteId);
        if (site === undefined) return 0;
        const client = context.registry.client(site);
        // A thread follows its parent channel's own filter.
        const channel = channels.get(feed.channelId);
        const parentId = channel?.parentId ?? null;
        const owner =
          channel !== undefined && THREADS.has(channel.type) && parentId !== null ? parentId : feed.channelId;
        const filters = { ...settings.filters, ...settings.channels?.[owner]?.filters };
        const filterId = context.sites.filterFor(site, filters);
        const call = { sf: 'id', sd: 'desc', perPage: 1, fresh: true } as const;
        const age = isAgeRestrictedChannel(channels.get(feed.channelId));
        const [matching, everything] = await Promise.all([
          client
            .searchImages({
              ...call,
              q: safeSearchQuery(feed.query, age),
              ...(filterId === undefined ? {} : { filterId }),
            })
            // A query the board refuses still imports: the poller pauses that feed and says why.
            .catch((error: unknown) => {
              if (error instanceof BadQueryError) return undefined;
              throw error;
            }),
          client.searchImages({ ...call, q: '*' }),
        ]);
        return Math.max(matching?.items[0]?.id ?? 0, everything.items[0]?.id ?? 0);
      };
      const result = await applyImport(
        { records, feeds: deps.feeds },
        {
          guildId: pending.guildId,
          memberId: interaction.user.id,
          settings,
          feeds: pending.feeds,
          now: context.now(),
          startingCursor: cursorOf,
          ageRestricted: (id) => isAgeRestrictedChannel(channels.get(id)),
        },
      );
      return textReply(sayTo(context.locale)('transfer.import.done', { feeds: result.feeds }));
    },
  };

  const cancel: ButtonHandler = {
    defer: (interaction, args) =>
      importCodec.decode(args)?.owner === interaction.user.id ? 'update' : 'ephemeral',
    async run(interaction, args, context) {
      ownerCheck(args, interaction.user.id);
      return textReply(sayTo(context.locale)('transfer.import.cancelled'));
    },
  };

  return {
    export: exportSettings,
    import: importSettings,
    buttons: { [importCodec.key('apply')]: apply, [importCodec.key('cancel')]: cancel },
  };
}
