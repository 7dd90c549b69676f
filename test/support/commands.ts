/**
 * Running a feature's handler without the local Discord: since handlers return what to send and only the
 * runtime writes, a command is a function from an interaction's data and a context to a `Reply`. The
 * context is the real one (createFeatures over the local Philomena, a memory store); the interaction is a
 * plain object with what handlers read (options, user, guild, channel, permissions).
 */
import { ChannelType, PermissionFlagsBits, PermissionsBitField, type Interaction } from 'discord.js';
import { createFeatures, type Features } from '../../commands/index.js';
import type { CommandContext } from '../../commands/shared/context.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createClientRegistry, type ClientRegistry } from '../../src/philomena/registry.js';
import { closeStore, createStore } from '../../src/store/index.js';
import { startFakePhilomena, type FakePhilomena } from '../fakes/philomena/index.js';

export interface CommandBed {
  readonly booru: FakePhilomena;
  readonly features: Features;
  /** The real context for an interaction with `where` (a plain or age-restricted server channel, a DM). */
  context(interaction: FakeInteraction): Promise<CommandContext>;
  close(): Promise<void>;
}

export type Where = 'plain' | 'ageRestricted' | 'dm';

/** What handlers read of an interaction. */
export interface FakeInteraction {
  readonly user: { readonly id: string };
  readonly guildId: string | null;
  readonly channel: { readonly type: number; readonly nsfw: boolean } | null;
  readonly memberPermissions: PermissionsBitField | null;
  readonly options: FakeOptions;
  readonly commandName: string;
}

interface FakeOptions {
  getString(name: string, required?: boolean): string | null;
  getInteger(name: string, required?: boolean): number | null;
  getNumber(name: string, required?: boolean): number | null;
  getBoolean(name: string, required?: boolean): boolean | null;
  getAttachment(name: string, required?: boolean): null;
  getSubcommand(required?: boolean): string | null;
  getSubcommandGroup(required?: boolean): string | null;
  getChannel(name: string, required?: boolean): null;
  getFocused(full: true): { name: string; value: string };
}

const MEMBER_ID = '200000000000000001';
const GUILD_ID = '100000000000000001';

/** An interaction of `commandName` in `where`, with these option values. */
export function fakeInteraction(
  commandName: string,
  values: Readonly<Record<string, string | number | boolean>>,
  where: Where = 'plain',
  extra: {
    readonly subcommand?: string;
    readonly subcommandGroup?: string;
    readonly manageServer?: boolean;
    readonly focused?: string;
  } = {},
): FakeInteraction {
  const get = <T>(name: string, required?: boolean): T | null => {
    const value = values[name] as T | undefined;
    if (value === undefined && required === true) throw new Error(`option ${name} is required`);
    return value ?? null;
  };
  return {
    user: { id: MEMBER_ID },
    guildId: where === 'dm' ? null : GUILD_ID,
    channel:
      where === 'dm'
        ? { type: ChannelType.DM, nsfw: false }
        : { type: ChannelType.GuildText, nsfw: where === 'ageRestricted' },
    memberPermissions:
      where === 'dm'
        ? null
        : new PermissionsBitField(extra.manageServer === true ? PermissionFlagsBits.ManageGuild : 0n),
    commandName,
    options: {
      getString: (name, required) => get<string>(name, required),
      getInteger: (name, required) => get<number>(name, required),
      getNumber: (name, required) => get<number>(name, required),
      getBoolean: (name, required) => get<boolean>(name, required),
      getAttachment: () => null,
      getSubcommand: () => extra.subcommand ?? null,
      getSubcommandGroup: () => extra.subcommandGroup ?? null,
      getChannel: () => null,
      getFocused: () => ({ name: extra.focused ?? '', value: String(values[extra.focused ?? ''] ?? '') }),
    },
  };
}

export async function startCommandBed(): Promise<CommandBed> {
  const booru = await startFakePhilomena();
  const config = loadConfig({
    DISCORD_TOKEN: 'command-bed-token-0000000000',
    BOORU_URL: booru.url,
    STORE_URL: 'memory://',
    COMMAND_RATE_LIMIT: 'off',
    UNFURL_RATE_LIMIT: 'off',
  });
  const logger = createLogger({ level: 'silent' });
  const store = createStore(config.storeUrl);
  const registry: ClientRegistry = createClientRegistry({ defaultSite: config.site, cache: store, logger });
  const features = createFeatures({ config, logger, store, registry });
  return {
    booru,
    features,
    context: (interaction) => {
      // What the runtime passes: the interaction's own channel (a fake never needs the raw packet's).
      const real = interaction as unknown as Interaction;
      return features.context(real, logger, real.channel ?? null);
    },
    async close() {
      await registry.close();
      await closeStore(store);
      await booru.close();
    },
  };
}
