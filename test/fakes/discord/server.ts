/**
 * Starts the local Discord (the handle and its options: api.ts): seeds its world (seed.ts), builds the state every part shares (state.ts),
 * the REST half (rest.ts, routes/) and the gateway (gateway.ts) on one 127.0.0.1 port, and puts the
 * handle a test holds together from the scenario helpers, one file per surface:
 *
 * - scenario/interactions.ts: slash commands, autocomplete, message commands, the one INTERACTION_CREATE
 *   (with scenario/command-options.ts: options and `data.resolved`; scenario/user-installs.ts: owners,
 *   contexts, the partial channel, forced ephemeral answers);
 * - scenario/components.ts: button clicks and select picks;
 * - scenario/forwards.ts and scenario/messages.ts: users' messages, forwards, MESSAGE_CREATE, reading
 *   channels back;
 * - scenario/guilds.ts: the seeded servers and the changes an admin makes to them.
 *
 * What they share (the state, where a channel is, dispatch to a shard) is scenario/context.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeDiscord, FakeDiscordOptions } from './api.js';
import { INTENT_GUILDS, createFakeGateway } from './gateway.js';
import { createSnowflakes, guildCreatePayload, shardOfGuild, userPayload } from './payloads.js';
import { createFakeRest } from './rest.js';
import { createComponentUses } from './scenario/components.js';
import { createModalSubmits } from './scenario/modals.js';
import { createScenario } from './scenario/context.js';
import { createUserMessages } from './scenario/forwards.js';
import { createGuildChanges, seededGuilds } from './scenario/guilds.js';
import { createInteractions } from './scenario/interactions.js';
import { createChannelMessages } from './scenario/messages.js';
import type { FakeGuild } from './scenario/types.js';
import { seedWorlds } from './seed.js';
import { createState } from './state.js';
import { precompile } from './validate.js';

const DEFAULT_TOKEN = 'MTA5.fake-discord.bot-token-for-tests';

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const now = options.now ?? Date.now;
  const snowflake = createSnowflakes(now);
  const applicationId = options.applicationId ?? snowflake();
  const botUserId = options.botUserId ?? applicationId;
  const token = options.token ?? DEFAULT_TOKEN;
  const shards = options.shards ?? 1;
  const maxConcurrency = options.maxConcurrency ?? 1;
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`fake Discord: shards ${shards}`);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new Error(`fake Discord: maxConcurrency ${maxConcurrency}`);
  }
  const { world, worlds, foreignWorlds, privateChannels, privateRefs } = seedWorlds({
    snowflake,
    now,
    botUserId,
    botUsername: options.botUsername,
    botPermissions: options.botPermissions,
    shards,
    guilds: options.guilds,
    foreignGuilds: options.foreignGuilds,
    guildLocales: options.guildLocales,
  });
  const appIntegrationTypes = options.appIntegrationTypes ?? [0, 1];
  const shardOf = (guildId: string): number => shardOfGuild(guildId, shards);
  const state = createState({
    token,
    applicationId,
    world,
    worlds,
    foreignWorlds,
    privateChannels,
    answerWindowMs: options.answerWindowMs ?? 3000,
    tokenLifetimeMs: options.tokenLifetimeMs ?? 15 * 60_000,
    now,
    snowflake,
    shards,
    maxConcurrency,
  });
  // Compile the schemas now, so that the first callback is not slowed by it.
  precompile([
    'CreateMessageInteractionCallbackRequest',
    'UpdateMessageInteractionCallbackRequest',
    'ApplicationCommandAutocompleteCallbackRequest',
    'IncomingWebhookUpdateRequestPartial',
    'IncomingWebhookRequestPartial',
    'MessageCreateRequest',
    'MessageEditRequestPartial',
  ]);

  let port = 0;
  const gatewayUrl = (): string => `ws://127.0.0.1:${port}/gateway`;
  const rest = createFakeRest(state, gatewayUrl, { globalLimit: options.globalRateLimit ?? true });
  const gateway = createFakeGateway({
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 2000,
    allowMessageContentIntent: options.allowMessageContentIntent ?? true,
    allowGuildMembersIntent: options.allowGuildMembersIntent ?? false,
    allowPresenceIntent: options.allowPresenceIntent ?? false,
    shardCount: shards,
    maxConcurrency,
    identifyLimit: options.identifyLimit ?? (shards > 1 || options.maxConcurrency !== undefined),
    onSessionStart: () => {
      state.sessionStartsRemaining = Math.max(0, state.sessionStartsRemaining - 1);
    },
    newSessionId: () => randomBytes(16).toString('hex'),
    resumeUrl: () => `ws://127.0.0.1:${port}/gateway/resume`,
    readyPayload: (sessionId, shard) => ({
      v: 10,
      user: { ...userPayload(world.bot), verified: true, mfa_enabled: true, email: null },
      guilds: worlds
        .filter((w) => shardOf(w.guildId) === shard[0] && !state.removedFrom.has(w.guildId))
        .map((w) => ({ id: w.guildId, unavailable: true })),
      session_id: sessionId,
      session_type: 'normal',
      resume_gateway_url: `ws://127.0.0.1:${port}/gateway/resume`,
      shard: [...shard],
      application: { id: applicationId, flags: 1 << 19 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: ['rotterdam'],
      user_settings: {},
      auth: {},
      _trace: ['["fake-discord",{"micros":0}]'],
    }),
    afterReady: (intents, shard) =>
      (intents & INTENT_GUILDS) === 0
        ? []
        : worlds
            .filter((w) => shardOf(w.guildId) === shard[0] && !state.removedFrom.has(w.guildId))
            .map((w) => ({ t: 'GUILD_CREATE', d: guildCreatePayload(w, now) })),
    violation: (v) => state.violation(v),
    now,
  });

  const server = createServer((request, response) => rest.handle(request, response));
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === gateway.path || path.startsWith(`${gateway.path}/`)) {
      gateway.handleUpgrade(request, socket, head);
    } else {
      socket.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  state.baseUrl = `http://127.0.0.1:${port}`;

  const scenario = createScenario({ state, gateway, privateRefs, appIntegrationTypes });
  const userMessages = createUserMessages(scenario);
  const interactions = createInteractions(scenario, userMessages);
  const components = createComponentUses(scenario, interactions.dispatchInteraction);
  const modals = createModalSubmits(scenario, interactions.dispatchInteraction);
  const channelMessages = createChannelMessages(scenario, userMessages);
  const guildChanges = createGuildChanges(scenario);
  const { guilds, foreignGuilds } = seededGuilds(scenario);

  const fake: FakeDiscord = {
    apiUrl: `${state.baseUrl}/api`,
    gatewayUrl: gatewayUrl(),
    token,
    applicationId,
    botUserId,
    guild: guilds[0] as FakeGuild,
    guilds,
    foreignGuilds,
    get foreignGuild() {
      const first = foreignGuilds[0];
      if (first === undefined) throw new Error('fake Discord: started with foreignGuilds: 0');
      return first;
    },
    privateChannels: { dm: privateRefs.privateDm, groupDm: privateRefs.groupDm },
    unavailableCommands: scenario.unavailableCommands,
    undelivered: scenario.undelivered,
    dmChannelId: world.dmChannelId,
    whenReady: () => gateway.whenReady(),
    whenResumed: () => gateway.whenResumed(),
    sendCommand: interactions.sendCommand,
    sendAutocomplete: interactions.sendAutocomplete,
    sendButton: components.sendButton,
    sendSelect: components.sendSelect,
    sendChannelSelect: components.sendChannelSelect,
    submitModal: modals.submitModal,
    sendMessageCommand: interactions.sendMessageCommand,
    sendMessage: channelMessages.sendMessage,
    get requests() {
      return state.requests;
    },
    get violations() {
      return state.violations;
    },
    get mentionRisks() {
      return state.mentionRisks;
    },
    channelMessages: channelMessages.channelMessages,
    allMessages: channelMessages.allMessages,
    get nonceReplays() {
      return state.nonceReplays;
    },
    deleteChannel: guildChanges.deleteChannel,
    denyBot: guildChanges.denyBot,
    allowBot: guildChanges.allowBot,
    updateChannel: guildChanges.updateChannel,
    removeBot: guildChanges.removeBot,
    updateGuild: guildChanges.updateGuild,
    message(id) {
      return state.messages.get(id);
    },
    registeredCommands(guildId) {
      return guildId === undefined ? state.globalCommands : (state.guildCommands.get(guildId) ?? []);
    },
    cdnFile(filename, content) {
      const cdnPath = `/cdn/attachments/${snowflake()}/${snowflake()}/${encodeURIComponent(filename)}`;
      state.files.set(
        cdnPath,
        typeof content === 'string'
          ? { data: Buffer.from([0x89]), contentType: 'image/png', fault: content }
          : { data: Buffer.from(content), contentType: 'image/png' },
      );
      return `${state.baseUrl}${cdnPath}`;
    },
    inject(rule) {
      state.injections.push({ ...rule, times: rule.times ?? 1 });
    },
    dropGateway(code = 4000) {
      gateway.drop(code);
    },
    requestReconnect() {
      gateway.requestReconnect();
    },
    get gatewayCloses() {
      return gateway.closes;
    },
    get identifies() {
      return gateway.identifies;
    },
    get resumes() {
      return gateway.resumes;
    },
    waitFor(check, timeoutMs = 5000) {
      return state.waitFor(check, timeoutMs, () => 'a condition');
    },
    async close() {
      for (const interaction of state.interactions.values()) {
        if (interaction.deadline !== undefined) clearTimeout(interaction.deadline);
      }
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
