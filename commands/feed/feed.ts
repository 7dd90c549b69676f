/**
 * `/feed`: new images matching a search, posted to a channel (the poller in poller.ts does the posting).
 * For members with Manage Server (Discord hides the command from the others, and the bot checks again).
 *
 * - `add query: [channel:] [site:]`: the bot checks that the member and the bot can both see and post in
 *   the channel (View Channel, Send Messages or Send Messages in Threads; the bot also Embed Links: Manage
 *   Server alone must not let an admin post where they may not), and that the board takes the query, then
 *   starts the feed from the site's newest image: only images uploaded after it are posted, never a backlog.
 * - `list`: the server's feeds, with channel, site, query, last post and state.
 * - `remove` / `pause` / `resume feed:` (the server's feeds are offered as you type).
 */
import {
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type SlashCommandSubcommandBuilder,
  type ApplicationCommandOptionChoiceData,
  type ChatInputCommandInteraction,
  PermissionsBitField,
} from 'discord.js';
import type { Incoming, KnownChannel, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { requiredGuildId } from '../../src/discord/preconditions.js';
import { BadQueryError } from '../../src/philomena/errors.js';
import type { Site } from '../../src/philomena/sites.js';
import { shippedTranslator, type Translator } from '../../src/i18n/index.js';
import { escapeMarkdown, truncate } from '../../src/render/index.js';
import { CHOICE_TEXT_MAX } from '../../src/discord/autocomplete.js';
import type { ChatCommand, CommandContext } from '../shared/context.js';
import { textReply } from '../shared/text-reply.js';
import { QUERY_MAX, queryChoices } from '../shared/query-autocomplete.js';
import { isAgeRestrictedChannel, isThread, safeSearchQuery } from '../shared/safety.js';
import { permissionBit, permissionList, type NamedPermission } from '../shared/permission-names.js';
import { sayEnglish, sayIn, type Say } from '../shared/say.js';
import { hasMyTerm } from '../shared/my-terms.js';
import { FeedLimitError, type Feed, type FeedStore } from './feed-store.js';
import {
  addedText,
  alreadyRunningText,
  listText,
  pausedText,
  removedText,
  resumedText,
  type FeedSpeaker,
} from './feed-text.js';

export interface FeedCommandOptions {
  readonly feeds: FeedStore;
  /** Feeds one server may have (FEEDS_PER_SERVER). */
  readonly perServer: number;
  /** How often feeds are polled (FEED_INTERVAL), to tell the admin. */
  readonly intervalMs: number;
  /** The answers' words (feed-text.ts); the shipped catalogues unless a test gives others. */
  readonly translator?: Translator;
}

/** Channels a feed can post into. */
const POSTABLE = [
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
  ChannelType.GuildVoice,
] as const;

type Subcommand = (
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
) => Promise<Reply>;

export function createFeedCommand(options: FeedCommandOptions): ChatCommand {
  const { feeds, perServer, intervalMs } = options;
  const speaker = (context: CommandContext): FeedSpeaker => ({
    translator: options.translator ?? shippedTranslator(),
    locale: context.locale,
  });

  function siteOf(context: CommandContext, id: string | null): Site {
    if (id === null) return context.view.site;
    const site =
      context.sites.byId(id) ?? context.sites.all.find((s) => s.name.toLowerCase() === id.toLowerCase());
    if (site === undefined)
      throw new UserFacingError('feed.unknown-site', 'Unknown site: pick one from the list.');
    return site;
  }

  async function feedOf(guildId: string, id: string): Promise<Feed> {
    const feed = (await feeds.list(guildId)).find((f) => f.id === id.trim());
    if (feed === undefined)
      throw new UserFacingError('feed.no-such-feed', 'No such feed in this server: see /feed list.');
    return feed;
  }

  /**
   * Whether the member and the bot may both post in `channel`, or what either lacks, said plainly. The
   * member's permissions there are Discord's own: the resolved channel option carries them (discord.js
   * keeps them as `permissions`), and for the channel of the interaction they are the member's.
   */
  function checkPostable(
    channel: KnownChannel,
    memberPermissions: Readonly<PermissionsBitField> | null,
    say: Say,
  ) {
    if (!(POSTABLE as readonly ChannelType[]).includes(channel.type)) {
      throw new UserFacingError(
        'feed.channel-type',
        'A feed posts into a text channel, an announcement channel or a thread.',
      );
    }
    // Named as Discord's client names them in the member's language (the params); English in the text.
    const send: NamedPermission = isThread(channel) ? 'SendMessagesInThreads' : 'SendMessages';
    const memberMissing = (['ViewChannel', send] as const).filter(
      (name) => memberPermissions?.has(permissionBit(name)) !== true,
    );
    if (memberMissing.length > 0) {
      const missing = permissionList(memberMissing, say);
      throw new UserFacingError(
        'feed.member-cannot-post',
        `You can't post in <#${channel.id}> yourself (${permissionList(memberMissing, sayEnglish)}), so a feed can't either.`,
        { params: { channel: channel.id, missing } },
      );
    }
    const missing = (['ViewChannel', send, 'EmbedLinks'] as const).filter(
      (name) => (channel.botPermissions & permissionBit(name)) === 0n,
    );
    if (missing.length > 0) {
      const named = permissionList(missing, say);
      throw new UserFacingError(
        'feed.bot-cannot-post',
        `I can't post cards in <#${channel.id}>: I need ${permissionList(missing, sayEnglish)} there.`,
        { params: { channel: channel.id, missing: named } },
      );
    }
  }

  /**
   * Where a new feed starts: the site's newest image (never the query's newest match alone: a query with
   * no match yet would start from 0 and post the query's oldest images), checking on the way that the
   * board takes the query.
   */
  async function startingCursor(
    context: CommandContext,
    site: Site,
    sent: string,
    filterId: number | undefined,
  ): Promise<number> {
    const client = context.registry.client(site);
    const call = { sf: 'id', sd: 'desc', perPage: 1, fresh: true } as const;
    try {
      const [matching, everything] = await Promise.all([
        client.searchImages({ ...call, q: sent, ...(filterId === undefined ? {} : { filterId }) }),
        client.searchImages({ ...call, q: '*' }),
      ]);
      return Math.max(matching.items[0]?.id ?? 0, everything.items[0]?.id ?? 0);
    } catch (error) {
      if (error instanceof BadQueryError) {
        // The board's own words (its search parser's), not the error's English wrapping of them.
        const message = escapeMarkdown(truncate(error.serverMessage, 300));
        throw new UserFacingError('feed.bad-query', `${site.name} does not accept that query: ${message}`, {
          params: { site: site.name, message },
        });
      }
      throw error;
    }
  }

  const add: Subcommand = async (interaction, context, guildId) => {
    const query = interaction.options.getString('query', true).trim();
    if (query === '')
      throw new UserFacingError('feed.query-needed', 'A feed needs a query, e.g. "pony, cute".');
    // A feed is the server's: no member's key goes with its polls, so a `my:` term would reach the board
    // without its member's key (issue 22: the term is never sent without it).
    if (hasMyTerm(query)) {
      throw new UserFacingError(
        'feed.my-term',
        "A feed belongs to the server, so it cannot search anyone's own lists (`my:`). Nothing was added.",
      );
    }
    const site = siteOf(context, interaction.options.getString('site'));
    // The option's id, looked up in the bot's own cache (the channel as the bot sees it, with its age
    // restriction and the bot's permissions), not Discord's partial copy in the interaction.
    const option = interaction.options.get('channel');
    const picked = option?.value;
    const channelId = typeof picked === 'string' ? picked : interaction.channelId;
    const channel = context.server?.channel(channelId) ?? null;
    if (channel === null) throw new UserFacingError('feed.channel-unseen', "I can't see that channel.");
    const resolved = option?.channel;
    const memberPermissions =
      option === null || option === undefined
        ? interaction.memberPermissions
        : resolved !== null && resolved !== undefined && 'permissions' in resolved
          ? typeof resolved.permissions === 'string'
            ? /^\d{1,40}$/.test(resolved.permissions)
              ? new PermissionsBitField(BigInt(resolved.permissions))
              : null
            : resolved.permissions
          : null;
    checkPostable(channel, memberPermissions ?? null, sayIn(context.locale, options.translator));
    const ageRestricted = isAgeRestrictedChannel(channel);
    const view = context.view.forSite(site);
    const newest = await startingCursor(context, site, safeSearchQuery(query, ageRestricted), view.filterId);
    let feed: Feed;
    try {
      feed = await feeds.add(
        {
          guildId,
          channelId: channel.id,
          ...(channel.parentId === null ? {} : { parentId: channel.parentId }),
          siteId: site.id,
          query,
          createdBy: interaction.user.id,
          createdAt: context.now(),
          cursor: newest,
          ageRestricted,
        },
        perServer,
      );
    } catch (error) {
      if (error instanceof FeedLimitError) {
        throw new UserFacingError(
          'feed.limit-reached',
          `This server has ${perServer} feeds, the most it may have: remove one first (/feed remove).`,
          { params: { limit: perServer } },
        );
      }
      throw error;
    }
    return textReply(
      addedText(speaker(context), {
        id: feed.id,
        siteName: site.name,
        query,
        channelId: channel.id,
        intervalMs,
        ageRestricted,
      }),
    );
  };

  const list: Subcommand = async (_interaction, context, guildId) => {
    const all = await feeds.list(guildId);
    const siteName = (id: string) => context.sites.byId(id)?.name ?? id;
    return textReply(listText(speaker(context), all, perServer, siteName));
  };

  const remove: Subcommand = async (interaction, context, guildId) => {
    const id = interaction.options.getString('feed', true);
    const removed = await feeds.remove(guildId, id.trim());
    if (removed === undefined)
      throw new UserFacingError('feed.no-such-feed', 'No such feed in this server: see /feed list.');
    return textReply(removedText(speaker(context), removed.id, removed.channelId));
  };

  const pause: Subcommand = async (interaction, context, guildId) => {
    const feed = await feedOf(guildId, interaction.options.getString('feed', true));
    // The stored detail is for the logs and the export: `/feed list` shows the admin reason in the reader's language.
    await feeds.update(guildId, feed.id, (current) => ({
      ...current,
      paused: { reason: 'admin', detail: 'paused by an admin', at: context.now() },
    }));
    return textReply(pausedText(speaker(context), feed.id));
  };

  const resume: Subcommand = async (interaction, context, guildId) => {
    const feed = await feedOf(guildId, interaction.options.getString('feed', true));
    if (feed.paused === undefined) return textReply(alreadyRunningText(speaker(context), feed.id));
    await feeds.update(guildId, feed.id, (current) => ({ ...current, paused: undefined }));
    // A server the bot had been removed from is polled again from now on.
    await feeds.reindex(guildId);
    return textReply(resumedText(speaker(context), feed.id));
  };

  const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = { add, list, remove, pause, resume };

  const feedOption = (sub: SlashCommandSubcommandBuilder, description: string) =>
    sub
      .setDescription(description)
      .addStringOption((option) =>
        option
          .setName('feed')
          .setDescription('The feed (see /feed list)')
          .setRequired(true)
          .setAutocomplete(true),
      );

  return {
    kind: 'chat',
    data: new SlashCommandBuilder()
      .setName('feed')
      .setDescription('Post new images matching a search to a channel')
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
      .setContexts(InteractionContextType.Guild)
      .addSubcommand((sub) =>
        sub
          .setName('add')
          .setDescription('Post new images matching a search to a channel')
          .addStringOption((option) =>
            option
              .setName('query')
              .setDescription('Tags separated by commas, e.g. "pony, cute" (the site\'s search syntax works)')
              .setRequired(true)
              .setMaxLength(QUERY_MAX)
              .setAutocomplete(true),
          )
          .addChannelOption((option) =>
            option
              .setName('channel')
              .setDescription('Where to post (default: this channel)')
              .addChannelTypes(...POSTABLE),
          )
          .addStringOption((option) =>
            option.setName('site').setDescription("The site (default: this server's)").setAutocomplete(true),
          ),
      )
      .addSubcommand((sub) => sub.setName('list').setDescription("This server's feeds"))
      .addSubcommand((sub) => feedOption(sub.setName('remove'), 'Stop a feed and forget it'))
      .addSubcommand((sub) => feedOption(sub.setName('pause'), 'Stop a feed for now'))
      .addSubcommand((sub) => feedOption(sub.setName('resume'), 'Start a paused feed again'))
      .toJSON(),
    // Discord hides the command from members without Manage Server, but a server can override that. The
    // runtime also gives no choices to the others: the feed list holds queries and private channels' names.
    requires: {
      guild: true,
      memberPermissions: PermissionFlagsBits.ManageGuild,
      refusals: {
        guild: { id: 'feed.server-only', text: 'Feeds belong to a server: use this command in one.' },
        memberPermissions: {
          id: 'feed.manage-server',
          text: 'Only members with the Manage Server permission can manage feeds.',
        },
      },
    },
    ephemeral: () => true,
    async execute(interaction, context) {
      const guildId = requiredGuildId(interaction);
      const run = SUBCOMMANDS[interaction.options.getSubcommand(true)];
      if (run === undefined) throw new UserFacingError('feed.unknown-subcommand', 'Unknown feed command.');
      return run(interaction, context, guildId);
    },
    async autocomplete(interaction, context): Promise<ApplicationCommandOptionChoiceData[]> {
      const focused = interaction.options.getFocused(true);
      // The runtime asks this only of members `requires` admits.
      const guildId = requiredGuildId(interaction);
      if (focused.name === 'query') {
        const site = context.sites.byId(interaction.options.getString('site') ?? '') ?? context.view.site;
        return queryChoices(context.registry.client(site), focused.value, {
          ageRestricted: context.view.ageRestricted,
          signal: context.signal,
          say: sayIn(context.locale, options.translator),
        });
      }
      if (focused.name === 'site') {
        const typed = focused.value.toLowerCase();
        return context.sites.all
          .filter((site) => site.name.toLowerCase().includes(typed) || site.id.includes(typed))
          .slice(0, 25)
          .map((site) => ({ name: truncate(site.name, CHOICE_TEXT_MAX), value: site.id }));
      }
      if (focused.name === 'feed') {
        const typed = focused.value.toLowerCase();
        const all = await feeds.list(guildId);
        return all
          .filter((feed) => feed.id.includes(typed) || feed.query.toLowerCase().includes(typed))
          .slice(0, 25)
          .map((feed) => {
            const channel = context.server?.channel(feed.channelId)?.name ?? feed.channelId;
            return {
              name: truncate(`${feed.id} · #${channel} · ${feed.query}`, CHOICE_TEXT_MAX),
              value: feed.id,
            };
          });
      }
      return [];
    },
  };
}
