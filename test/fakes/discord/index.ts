/**
 * The local Discord for end-to-end tests: REST (`/api/v10`) and the gateway WebSocket on 127.0.0.1,
 * reached by an unmodified discord.js 14 client through its REST base URL:
 *
 *   const fake = await startFakeDiscord();
 *   const client = new Client({ intents, rest: { api: fake.apiUrl } });
 *   await client.login(fake.token);              // GET /gateway/bot → gateway → READY + GUILD_CREATE
 *   const slash = fake.sendCommand({ name: 'image', options: { id: 1 }, channel: 'plain' });
 *   const reply = await slash.finalReply();      // the reply, or the edit after a defer
 *   expect(fake.violations).toEqual([]);         // nothing real Discord would have refused
 *   expect(fake.mentionRisks).toEqual([]);       // nothing could ping anyone
 *   client.destroy(); await fake.close();
 *
 * Seeded world (`fake.guild`): one guild owned by `ownerId` with a category, a plain text channel
 * (`channels.plain`, nsfw false), an age-restricted text channel (`channels.ageRestricted`, nsfw true), a
 * spoiler channel (`channels.spoiler`: nsfw false, `flags` IS_SPOILER_CHANNEL 1 << 21), a forum and a
 * voice channel, a public thread in each text channel, roles @everyone / the bot's managed
 * role (`botPermissions`, Manage Messages included by default) / Moderators (Manage Guild + Manage
 * Messages, held by the owner), and members owner, `memberId` (plain member) and `otherMemberId`. A DM
 * channel (`dmChannelId`) with the plain member.
 *
 * Shards: `startFakeDiscord({ shards: 2, maxConcurrency: 1, guilds: 4 })` recommends 2 shards in GET
 * /gateway/bot and accepts IDENTIFY `shard: [id, 2]` only (else 4010). The world then holds `guilds`
 * servers (default one per shard), built like `fake.guild` (which stays the first, on shard 0) with ids
 * on shard `i % shards` (`fake.guilds[i].shard`); REST knows every server's guild, channels and members
 * (a background poster can post into any of them). A session's
 * READY and GUILD_CREATEs cover its shard's guilds; interactions and MESSAGE_CREATE go to the session of
 * the guild's shard (DMs to shard 0), and with no such session they are recorded in `undelivered`. At
 * most one IDENTIFY per 5 s per bucket `shard_id % maxConcurrency`: one more is a 'gateway' violation
 * closed with 4008 (`identifies` has each IDENTIFY's shard id and time); not checked by the default
 * single-shard fake unless `identifyLimit: true`.
 *
 * Events towards the bot: `sendCommand`, `sendAutocomplete`, `sendButton` and `sendSelect` (string
 * select; either component may be nested in containers or sections), `sendChannelSelect` (channel
 * select, with `resolved.channels`), `submitModal` (a modal the bot showed with callback 9, checked
 * against Discord's modal limits in modals.ts when shown), `sendMessageCommand` (message
 * context menu), `sendMessage` (MESSAGE_CREATE, content blanked unless the Message Content intent is
 * held, as Discord does). What the bot did: `requests` (every REST call), `violations` (every refusal real
 * Discord would have made, also answered with Discord's status and JSON error), `mentionRisks` (message
 * bodies whose allowed_mentions is not `{ parse: [] }`), `channelMessages(channel)`,
 * `registeredCommands(guildId?)`, `nonceReplays` (sends with `nonce` + `enforce_nonce: true` repeating a
 * nonce of the bot's in that channel within 5 minutes: answered with the earlier message, nothing new).
 * Faults: `inject({ route, status, retryAfter, times })` (429 with the headers discord.js reads, 5xx ...),
 * `dropGateway(code)` (the client resumes), `requestReconnect()`. Changes to the world, each also sent
 * over the gateway: `deleteChannel(channel)` (then 404 10003, CHANNEL_DELETE), `denyBot(channel, bits)`
 * / `allowBot(channel)` (a member overwrite: then 403 50013 Missing Permissions, or 50001 Missing Access
 * without View Channel; CHANNEL_UPDATE with the new permission_overwrites), `updateChannel(channel, { nsfw,
 * flags })` (CHANNEL_UPDATE; Discord's refusals thrown: the spoiler flag on an age-restricted channel,
 * either way round, and a thread's). GET /channels/:id answers `nsfw` and `flags` for channels and
 * `parent_id` for threads (a thread is age-restricted, or a spoiler channel's, when its parent is); so do
 * GUILD_CREATE, CHANNEL_UPDATE and an interaction's `channel` (the partial one too).
 *
 * User installs: `fake.foreignGuilds` (option `foreignGuilds`, default 1; `fake.foreignGuild` the first)
 * are servers the bot is NOT in, built like `fake.guild` (plain and age-restricted channels, a thread in
 * each ...) but with no bot member: no READY entry, GUILD_CREATE or MESSAGE_CREATE, and REST on their
 * channels, members and guild commands answers 403 50001 Missing Access (GET /guilds/:id 404 10004).
 * `fake.privateChannels` (`'privateDm'`, `'groupDm'`) are a DM and a group DM between users (REST: 403
 * 50001). Interactions there (`sendCommand({ channel: fake.foreignGuild.channels.plain })`, `channel:
 * 'groupDm'`) come as Discord sends them for a user-installed app: `context` 0 (server) or 2 (private
 * channel), `authorizing_integration_owners: { "1": user }`, a partial `channel` (a thread: `parent_id`,
 * no `nsfw`), `member` with `permissions` in a server and `user` elsewhere, and `app_permissions` (the
 * documented DM bits; in a server, the member's permissions limited to message bits, an approximation).
 * Every interaction carries `context` and owners: in the bot's servers and DM "0" (guild id, or "0" in the
 * DM); option `install: 'user' | 'guild' | 'both'` says through which installs the user came (default:
 * 'guild' where the app is installed, 'user' elsewhere). A registered command's `integration_types` /
 * `contexts` decide which keys Discord sends; dispatching one where Discord would not offer it is
 * recorded in `unavailableCommands`. `externalApps: false` takes Use External Apps (1 << 50) from the
 * member: in a server the bot is not in, every response and follow-up is then made ephemeral
 * (`handle.forcedEphemeral`, `responses[i].forcedEphemeral`). Authorized by a user install only, an
 * interaction gets at most 5 follow-up messages: the 6th is refused 400 40094 (a 'followup-limit'
 * violation). Interaction webhooks need no guild of the bot's and work for all of these.
 *
 * Resolved data: chat-input options of type user, channel, role and mentionable come with
 * `data.resolved` (users and members, partial channels, roles); a channel option's value may be a ref
 * ('ageRestricted'). Forwards: `sendMessage({ channel, forwardOf: message | { content, embeds, attachments,
 * channel? } })` dispatches a message with no content of its own, HAS_SNAPSHOT, `message_reference` type 1
 * and the original in `message_snapshots` (blanked with the content without the Message Content intent);
 * `sendMessageCommand({ targetMessage: { forwardOf } })` targets such a forward.
 *
 * Components V2 (flag IS_COMPONENTS_V2, 1 << 15): such bodies are checked as Discord does (no content,
 * embeds, poll or stickers; containers, sections, text displays, thumbnails, media galleries, files and
 * separators; at most 40 components counting nested ones and 4,000 characters over all text displays);
 * the flag stays on a message through its edits, a defer cannot set it (the edit that fills the reply in
 * does). `v2.ts` reads the trees back: `textOf`, `galleryItemsOf`, `componentsOfType`, `isComponentsV2`.
 *
 * Timing rules: an interaction callback later than `answerWindowMs` (default 3000) is refused with
 * 404 10062 Unknown interaction; a second callback with 400 40060; webhook calls after `tokenLifetimeMs`
 * (15 min) with 401 50027. Bodies are checked against its copy of Discord's OpenAPI description
 * (openapi.json) plus the documented limits (see validate.ts; docs/discord-platform.md).
 *
 * Where it lives: api.ts the handle and its options; server.ts starts it and puts the handle together;
 * seed.ts seeds the world, state.ts holds what every part shares, rest.ts and routes/ answer REST,
 * gateway.ts speaks the gateway, and scenario/ holds the helpers a test drives it with, one file per
 * surface (interactions, components, user installs, command options, forwards, messages, guilds;
 * context.ts what they share, types.ts their types). This file is the public API.
 */
export { startFakeDiscord } from './server.js';
export type { FakeDiscord, FakeDiscordOptions } from './api.js';
export type {
  AttachmentInput,
  AutocompleteOptions,
  ButtonOptions,
  ChannelChange,
  ChannelSelectOptions,
  ChannelTarget,
  CommandOptions,
  ComponentOptions,
  FakeForeignGuild,
  FakeGuild,
  FakePrivateChannels,
  ForwardSource,
  GuildChange,
  InstallKind,
  InteractionHandle,
  InteractionOption,
  MessageCommandOptions,
  MessageHandle,
  ModalSubmitOptions,
  OptionValues,
  PrivateChannelRef,
  SelectOptions,
  SendMessageOptions,
  TargetMessageInput,
  UnavailableCommand,
  UndeliveredEvent,
} from './scenario/types.js';
export type {
  Choice,
  GatewayClose,
  MentionRisk,
  NonceReplay,
  RecordedMessage,
  RecordedRequest,
  RecordedResponse,
  Violation,
} from './types.js';
export type { InjectRule } from './state.js';
export type { IdentifyRecord } from './gateway.js';
export { IS_SPOILER_CHANNEL_FLAG } from './payloads.js';
export {
  customIdsOf,
  type ComponentJson,
  type ComponentSource,
  type GalleryItem,
  type HasComponents,
} from './v2.js';
