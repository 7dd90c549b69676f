/**
 * What every scenario helper (scenario/*.ts) shares: the fake's state, where a channel a test names is
 * (one of the servers, the bot's DM, a DM between users), and sending an event to the session that holds
 * a server's shard. Built once per fake by `createScenario`; the helpers take it as their first argument,
 * so nothing here is module-level.
 */
import type { FakeGateway } from '../gateway.js';
import { shardOfGuild, type PrivateChannel, type SeedChannel, type World } from '../payloads.js';
import type { FakeState } from '../state.js';
import type { ChannelTarget, PrivateChannelRef, UnavailableCommand, UndeliveredEvent } from './types.js';

/** Where a channel is: a server (the bot's, or one it is not in), the bot's DM, a DM between users. */
export type Place =
  | { readonly kind: 'guild'; readonly w: World; readonly channel: SeedChannel }
  | { readonly kind: 'botDm' }
  | { readonly kind: 'private'; readonly channel: PrivateChannel };

/** The interaction context type of a place: 0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL. */
export const contextOf = (place: Place): number =>
  place.kind === 'guild' ? 0 : place.kind === 'botDm' ? 1 : 2;

/** Is the app installed where the place is (its own server, or its DM)? */
export const appInstalledAt = (place: Place): boolean =>
  place.kind === 'botDm' || (place.kind === 'guild' && place.w.botIsMember);

export interface Scenario {
  readonly state: FakeState;
  /** The first server: the bot's user, its DM and the users of DMs live here. */
  readonly world: World;
  readonly worlds: readonly World[];
  readonly foreignWorlds: readonly World[];
  readonly privateChannels: ReadonlyMap<string, PrivateChannel>;
  readonly now: () => number;
  readonly snowflake: () => string;
  readonly applicationId: string;
  /** What a global command registered without `integration_types` supports (the Developer Portal's). */
  readonly appIntegrationTypes: readonly number[];
  /** Interactions dispatched where Discord would not have offered the command (`fake.unavailableCommands`). */
  readonly unavailableCommands: UnavailableCommand[];
  /** Events no session held the shard of (`fake.undelivered`). */
  readonly undelivered: UndeliveredEvent[];
  /** Channels `deleteChannel` took out, with their server: their messages stay readable. */
  readonly deletedChannels: Map<string, { world: World; channel: SeedChannel }>;
  shardOf(guildId: string): number;
  /**
   * The id of a channel a test names (a ref such as 'plain' or 'privateDm', or an id); throws for an
   * unknown one, and for a deleted one unless `deleted`.
   */
  channelIdOf(target: ChannelTarget, options?: { deleted?: boolean }): string;
  /** A live guild channel or thread and its server (not the DM). */
  guildChannel(target: ChannelTarget, what: string): { w: World; channel: SeedChannel };
  /** The server a channel belongs to (the DM: the first world, whose plain member it is with). */
  worldOf(channelId: string): World;
  placeOf(channelId: string): Place;
  /** The guild id of a channel of any server; undefined for DMs. */
  guildIdOf(channelId: string): string | undefined;
  /**
   * Dispatch to the session holding the guild's shard (a DM: shard 0); with none, Discord would not
   * deliver it either, so the fake records it in `undelivered`.
   */
  dispatchToShard(t: string, guildId: string | undefined, build: (intents: number) => unknown): void;
}

export function createScenario(init: {
  state: FakeState;
  gateway: Pick<FakeGateway, 'dispatch'>;
  privateRefs: Readonly<Record<PrivateChannelRef, string>>;
  appIntegrationTypes: readonly number[];
}): Scenario {
  const { state, gateway, privateRefs } = init;
  const { world, worlds, foreignWorlds, privateChannels, now } = state;
  const deletedChannels = new Map<string, { world: World; channel: SeedChannel }>();
  const undelivered: UndeliveredEvent[] = [];
  const shardOf = (guildId: string): number => shardOfGuild(guildId, state.shards);

  function channelIdOf(target: ChannelTarget, { deleted = false }: { deleted?: boolean } = {}): string {
    const id =
      target in world.refs
        ? world.refs[target as keyof typeof world.refs]
        : target in privateRefs
          ? privateRefs[target as PrivateChannelRef]
          : target;
    if (
      id === world.dmChannelId ||
      privateChannels.has(id) ||
      [...worlds, ...foreignWorlds].some((w) => w.channels.has(id))
    ) {
      return id;
    }
    if (deletedChannels.has(id)) {
      if (deleted) return id;
      throw new Error(`fake Discord: channel ${target} was deleted`);
    }
    throw new Error(`fake Discord: unknown channel ${target}`);
  }

  function placeOf(channelId: string): Place {
    if (channelId === world.dmChannelId) return { kind: 'botDm' };
    const privateChannel = privateChannels.get(channelId);
    if (privateChannel !== undefined) return { kind: 'private', channel: privateChannel };
    for (const w of [...worlds, ...foreignWorlds]) {
      const channel = w.channels.get(channelId);
      if (channel !== undefined) return { kind: 'guild', w, channel };
    }
    throw new Error(`fake Discord: unknown channel ${channelId}`);
  }

  return {
    state,
    world,
    worlds,
    foreignWorlds,
    privateChannels,
    now,
    snowflake: state.snowflake,
    applicationId: state.applicationId,
    appIntegrationTypes: init.appIntegrationTypes,
    unavailableCommands: [],
    undelivered,
    deletedChannels,
    shardOf,
    channelIdOf,
    guildChannel(target, what) {
      const id = channelIdOf(target);
      const w = worlds.find((candidate) => candidate.channels.has(id));
      const channel = w?.channels.get(id);
      if (w === undefined || channel === undefined)
        throw new Error(`fake Discord: ${what} needs a guild channel`);
      return { w, channel };
    },
    worldOf(channelId) {
      return [...worlds, ...foreignWorlds].find((w) => w.channels.has(channelId)) ?? world;
    },
    placeOf,
    guildIdOf(channelId) {
      const place = placeOf(channelId);
      return place.kind === 'guild' ? place.w.guildId : undefined;
    },
    dispatchToShard(t, guildId, build) {
      const shard = guildId === undefined ? 0 : shardOf(guildId);
      if (gateway.dispatch(t, build, shard) === 0) undelivered.push({ t, shard, guildId, at: now() });
    },
  };
}
