/**
 * Every feature, in one list: the runtime routes from it and `npm run deploy-commands` registers it.
 * `createFeatures` also builds what the features share (the site directory, server settings, button state,
 * the reverse-search gate) and the context each interaction gets; main.ts hands it all to the runtime.
 */
import type Keyv from 'keyv';
import { InteractionType, type Interaction } from 'discord.js';
import type { Config } from '../src/config.js';
import type { BackgroundTask, ContextFactory, MessageHandler } from '../src/discord/contract.js';
import { createLocalLeases, type PollLeases } from './feed/leases.js';
import { createButtonState } from '../src/discord/button-state.js';
import type { DescribeError } from '../src/discord/failures.js';
import type { ClientRegistry } from '../src/philomena/registry.js';
import type { Logger } from '../src/logger.js';
import type { Site } from '../src/philomena/sites.js';
import type { RuleDecision, RuleLayer } from '../src/render/content-rules.js';
import { featuredCommand } from './featured/featured.js';
import { createFeedCommand, type FeedCommandOptions } from './feed/feed.js';
import { createFeedStore } from './feed/feed-store.js';
import { createFeedPoller, type PollEvent } from './feed/poller.js';
import { galleryCommand } from './gallery/gallery.js';
import { commentsCommand } from './comments/comments.js';
import { forumCommand } from './forum/forum.js';
import { imageCommand } from './image/image.js';
import { createMeCommand } from './me/me.js';
import { createMemberSettings, type MemberSettings } from './me/member-settings.js';
import { findSourceCommand } from './reverse/find-source.js';
import { reverseCommand } from './reverse/reverse.js';
import { searchCommand } from './search/search.js';
import { createSettingsCommand, type SettingsCommandOptions } from './settings/settings.js';
import { createSettingsTransfer } from './settings/transfer.js';
import { localiseCommands } from './shared/command-locales.js';
import type { Command, CommandContext } from './shared/context.js';
import { attachmentHosts, createDownloader, type Download } from './shared/download.js';
import { createGuildSettings } from './shared/guild-settings.js';
import { createMemberKeys } from './shared/member-keys.js';
import { createReverseGate } from './shared/reverse-gate.js';
import { createSiteDirectory } from './shared/site-directory.js';
import { userErrorText } from './shared/error-texts.js';
import { resolveView } from './shared/view.js';
import { tagCommand } from './tag/tag.js';
import { createUploadCaps } from './upload/upload-caps.js';
import { createUploadMenuCommand } from './upload/upload-menu.js';
import { createUploadCommand } from './upload/upload.js';
import type { UploadFeature } from './upload/upload-send.js';
import { showCardCommand } from './unfurl/show-card.js';
import { createUnfurlHandler, type UnfurlDecision } from './unfurl/unfurl.js';

/**
 * `defaultSite` is the configured site (BOORU_URL): `/settings site` offers it by name when it is not a
 * known site. Pass it wherever the list is registered, so the registration (and its hash) covers it.
 * `feeds` is what `/feed` runs on; a list made only to be registered (deploy-commands) goes without it,
 * since registering reads only the commands' definitions.
 */
export function allCommands(
  options: {
    readonly defaultSite?: Site;
    readonly feeds?: FeedCommandOptions;
    /** UNFURL: whether `/settings show` checks the permissions reading chat needs. */
    readonly readsChat?: boolean;
    /** What `/me` keeps member records in; a list made only to be registered goes without. */
    readonly members?: MemberSettings;
    /** `/settings export` and `import`; a list made only to be registered goes without. */
    readonly transfer?: SettingsCommandOptions['transfer'];
    /** UPLOADS and the upload caps; a list made only to be registered goes without (uploads off). */
    readonly uploads?: UploadFeature;
  } = {},
): readonly Command[] {
  const uploads = options.uploads ?? UPLOADS_OFF;
  return localiseCommands([
    imageCommand,
    searchCommand,
    galleryCommand,
    commentsCommand,
    forumCommand,
    tagCommand,
    reverseCommand,
    findSourceCommand,
    showCardCommand,
    featuredCommand,
    createSettingsCommand({
      ...(options.defaultSite === undefined ? {} : { defaultSite: options.defaultSite }),
      ...(options.readsChat === undefined ? {} : { readsChat: options.readsChat }),
      ...(options.transfer === undefined ? {} : { transfer: options.transfer }),
    }),
    createFeedCommand(options.feeds ?? UNCONFIGURED_FEEDS),
    createMeCommand({
      ...(options.defaultSite === undefined ? {} : { defaultSite: options.defaultSite }),
      ...(options.members === undefined ? {} : { members: options.members }),
      ...(options.uploads === undefined ? {} : { alsoKept: [options.uploads.caps] }),
    }),
    createUploadCommand(uploads),
    createUploadMenuCommand(uploads),
  ]);
}

const notConfigured = (): Promise<never> =>
  Promise.reject(new Error('feeds are not configured in this command list'));

/** `/feed` as registered only: running it without the bot's store is a bug, said as one. */
const UNCONFIGURED_FEEDS: FeedCommandOptions = {
  feeds: {
    list: notConfigured,
    guilds: notConfigured,
    add: notConfigured,
    remove: notConfigured,
    update: notConfigured,
    dormant: notConfigured,
    retire: notConfigured,
    reindex: notConfigured,
    forget: notConfigured,
    replacement: () => {
      throw new Error('feeds are not configured in this command list');
    },
  },
  perServer: 0,
  intervalMs: 0,
};

const uploadsNotConfigured = (): Promise<never> =>
  Promise.reject(new Error('uploads are not configured in this command list'));

/** Uploads as registered only: off everywhere, so the caps are never reached. */
const UPLOADS_OFF: UploadFeature = {
  sites: [],
  caps: {
    check: uploadsNotConfigured,
    reserve: uploadsNotConfigured,
    finish: uploadsNotConfigured,
    forget: uploadsNotConfigured,
  },
};

export interface FeatureDeps {
  readonly config: Config;
  readonly logger: CommandContext['logger'];
  readonly store: Keyv;
  readonly registry: ClientRegistry;
  readonly now?: () => number;
  /** Reads Discord attachments; default: Discord's CDN (and a configured local API host). */
  readonly download?: Download;
  /** Told what became of each link the unfurler recognised (metrics). */
  readonly onUnfurlDecision?: (decision: UnfurlDecision, count: number) => void;
  /** Who polls which feed group: shared between processes (Redis) or this process's own. */
  readonly leases?: PollLeases;
  /** Told of each feed poll (metrics, tests). */
  readonly onFeedPoll?: (event: PollEvent) => void;
  /** Told of each image a rule in layers hid or spoilered, by layer (metrics). */
  readonly onRuleDecision?: (decision: RuleDecision, layer: RuleLayer) => void;
  /** How often the feed poller looks for due groups; default FEED_INTERVAL / 20 (tests: shorter). */
  readonly feedTickMs?: number;
}

export interface Features {
  readonly commands: readonly Command[];
  readonly context: ContextFactory<CommandContext>;
  readonly messageHandlers: readonly MessageHandler[];
  readonly describeError: DescribeError;
  readonly tasks: readonly BackgroundTask[];
}

export function createFeatures(deps: FeatureDeps): Features {
  const { config, logger, registry } = deps;
  const now = deps.now ?? Date.now;
  const sites = createSiteDirectory({
    defaultSite: config.site,
    defaultFilterId: config.booruFilterId,
    floor: config.floor,
  });
  const settings = createGuildSettings({ store: deps.store, logger });
  const members = createMemberSettings({ store: deps.store, logger });
  // Without MEMBER_KEY_SECRET linking is off; keys already kept can still be listed and deleted.
  const memberKeys = createMemberKeys({
    store: deps.store,
    logger,
    secrets:
      config.memberKeySecret === undefined
        ? undefined
        : { current: config.memberKeySecret, previous: config.memberKeySecretPrevious },
  });
  const state = createButtonState(deps.store);
  const download = deps.download ?? createDownloader({ allowedHosts: attachmentHosts(config.discordApiUrl) });
  const reverseGate = createReverseGate();

  /**
   * What the member keeps for themselves applies to what they ask for (not autocomplete, which shows
   * names, not images): their hidden tags everywhere; their filters and their linked accounts' filters
   * where neither the channel nor the server chose a filter for the site (commands/shared/view.ts: a
   * filter the server chose always wins, so `serverDecides` needs no special case here). A record that
   * cannot be read is said in the log and the interaction goes on without it: the member's lists are
   * their preference, the floor, the server's rules and the rating rule hold without them, and a store
   * outage must not stop every command (/me itself says when it cannot read or save).
   */
  async function ownLayers(
    interaction: Interaction,
    log: Logger,
  ): Promise<{
    readonly memberFilters?: Readonly<Record<string, number>>;
    readonly memberHidden?: readonly string[];
    readonly linkedSites?: ReadonlySet<string>;
  }> {
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete) return {};
    const [record, linked] = await Promise.all([
      members.get(interaction.user.id).catch((error: unknown) => {
        log.warn(
          { err: error },
          "the member's own settings could not be read: their hidden tags and filter do not apply",
        );
        return undefined;
      }),
      memberKeys.sites(interaction.user.id).catch((error: unknown) => {
        log.warn(
          { err: error },
          "the member's linked accounts could not be read: their filters do not apply",
        );
        return [];
      }),
    ]);
    return {
      ...(record === undefined ? {} : { memberFilters: record.filters }),
      ...(record === undefined || record.hiddenTags.length === 0 ? {} : { memberHidden: record.hiddenTags }),
      ...(linked.length === 0 ? {} : { linkedSites: new Set(linked.map((site) => site.siteId)) }),
    };
  }

  const observe = deps.onRuleDecision;
  const viewDeps = { settings, sites, ...(observe === undefined ? {} : { observe }) };

  /** Resolved fresh for every interaction, so a settings change applies at once. */
  const context: ContextFactory<CommandContext> = async (
    interaction: Interaction,
    interactionLogger,
    channel,
    server,
  ) => ({
    logger: interactionLogger,
    ...(server === undefined ? {} : { server }),
    locale: interaction.locale,
    guildLocale: interaction.guildLocale,
    view: await resolveView(
      {
        guildId: interaction.guildId,
        channel,
        memberLocale: interaction.locale,
        ...(await ownLayers(interaction, interactionLogger)),
      },
      viewDeps,
    ),
    userId: interaction.user.id,
    registry,
    settings,
    sites,
    state,
    now,
    download,
    reverseGate,
    searchWindow: config.searchWindow,
    memberKeys,
  });

  const unfurl = createUnfurlHandler({
    sites,
    registry,
    settings,
    logger,
    members,
    ...(observe === undefined ? {} : { observe }),
    rateLimit: config.unfurlRateLimit,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.onUnfurlDecision === undefined ? {} : { onDecision: deps.onUnfurlDecision }),
  });

  const feeds = createFeedStore(deps.store);
  const poller = createFeedPoller({
    feeds,
    registry,
    sites,
    settings,
    leases: deps.leases ?? createLocalLeases(now),
    logger: logger.child({ task: 'feeds' }),
    intervalMs: config.feedIntervalMs,
    maxPerPoll: config.feedMaxPerPoll,
    settleMs: config.feedSettleMs,
    ...(deps.feedTickMs === undefined ? {} : { tickMs: deps.feedTickMs }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.onFeedPoll === undefined ? {} : { onPoll: deps.onFeedPoll }),
    ...(observe === undefined ? {} : { observe }),
  });

  return {
    commands: allCommands({
      defaultSite: config.site,
      readsChat: config.unfurl,
      feeds: { feeds, perServer: config.feedsPerServer, intervalMs: config.feedIntervalMs },
      members,
      transfer: createSettingsTransfer({ store: deps.store, feeds, perServer: config.feedsPerServer }),
      uploads: {
        sites: config.uploads.sites,
        caps: createUploadCaps({
          store: deps.store,
          perMemberHour: config.uploads.perMemberHour,
          perSiteHour: config.uploads.perSiteHour,
          now,
        }),
      },
    }),
    context,
    messageHandlers: [unfurl],
    describeError: userErrorText,
    tasks: [poller],
  };
}
