/**
 * A bed for `/settings export` and `/settings import`: the real settings, feed store, site directory and
 * button state over a given keyv, a download that hands over the bytes a test chose, a board whose newest
 * image is NEWEST, and interactions of a server with the channels a test chose.
 */
import {
  ChannelType,
  PermissionFlagsBits,
  PermissionsBitField,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type Keyv from 'keyv';
import { expect } from 'vitest';
import { z } from 'zod';
import { createFeedStore } from '../../../commands/feed/feed-store.js';
import type { CommandContext } from '../../../commands/shared/context.js';
import type { KnownChannel, KnownServer } from '../../../src/discord/contract.js';
import { createGuildSettings } from '../../../commands/shared/guild-settings.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { createSettingsTransfer } from '../../../commands/settings/transfer.js';
import { createButtonState } from '../../../src/discord/button-state.js';
import type { Incoming, Reply } from '../../../src/discord/contract.js';
import { createLogger } from '../../../src/logger.js';
import { knownSite } from '../../../src/philomena/sites.js';
import { recordStoreOf } from '../../../src/store/index.js';

export const GUILD = '100000000000000001';
export const MEMBER = '200000000000000001';
export const OTHER_MEMBER = '200000000000000002';
export const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
/** The board's newest image: where a new feed starts. */
export const NEWEST = 9000;
/** Channels of the server: two plain ones, one age-restricted, a forum. */
export const CHANNELS = [
  '300000000000000001',
  '300000000000000002',
  '300000000000000003',
  '300000000000000004',
];

export function transferBed(store: Keyv, options: { readonly perServer?: number } = {}) {
  const logger = createLogger({ level: 'silent' });
  const defaultSite = knownSite('derpibooru');
  if (defaultSite === undefined) throw new Error('derpibooru is a known site');
  const settings = createGuildSettings({ store, logger });
  const feeds = createFeedStore(store);
  const sites = createSiteDirectory({ defaultSite, defaultFilterId: undefined });
  const searches: string[] = [];
  let upload: Uint8Array = new Uint8Array();
  const context = {
    logger,
    settings,
    sites,
    state: createButtonState(store),
    now: () => NOW,
    download: async () =>
      (async function* () {
        yield upload;
      })(),
    registry: {
      client: () => ({
        searchImages: async (params: { readonly q: string }) => {
          searches.push(params.q);
          return { items: [{ id: NEWEST }], total: 1 };
        },
      }),
    },
  } as unknown as CommandContext;
  const transfer = createSettingsTransfer({ store, feeds, perServer: options.perServer ?? 10 });
  const channels = new Map(
    CHANNELS.map((id, i) => [
      id,
      { id, type: i === 3 ? ChannelType.GuildForum : ChannelType.GuildText, nsfw: i === 2 },
    ]),
  );
  channels.set('300000000000000009', {
    id: '300000000000000009',
    type: ChannelType.PublicThread,
    nsfw: false,
  });
  const guild = { id: GUILD, name: 'Pony Place' };
  // What the runtime knows of the server (src/discord/server-facts.ts), as the context carries it.
  const known: KnownChannel[] = [...channels.values()].map((c) => ({
    ...c,
    name: `channel-${c.id.slice(-1)}`,
    flags: 0,
    parent: null,
    parentId: null,
    botPermissions: 0n,
  }));
  const server: KnownServer = {
    id: GUILD,
    name: guild.name,
    locale: 'en-US',
    channel: (id) => known.find((c) => c.id === id),
    channels: () => known,
  };
  Object.assign(context, { server });

  function command(size?: number): Incoming<ChatInputCommandInteraction> {
    return {
      user: { id: MEMBER },
      guildId: GUILD,
      guild,
      memberPermissions: new PermissionsBitField(PermissionFlagsBits.ManageGuild),
      options: {
        getAttachment: () => ({
          url: 'https://cdn.discordapp.com/attachments/1/2/settings.json',
          size: size ?? upload.byteLength,
        }),
      },
    } as unknown as Incoming<ChatInputCommandInteraction>;
  }

  function click(member = MEMBER): Incoming<ButtonInteraction> {
    return {
      user: { id: member },
      guildId: GUILD,
      guild,
      memberPermissions: new PermissionsBitField(PermissionFlagsBits.ManageGuild),
    } as unknown as Incoming<ButtonInteraction>;
  }

  /** Presses the button of `reply` labelled `label`, as `member`: its deferral and what it answers. */
  async function press(reply: Reply, label: 'Apply' | 'Cancel', member = MEMBER) {
    if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
    const button = buttonsOf(reply.body.components).find((b) => b.label === label);
    if (button === undefined) throw new Error(`no ${label} button`);
    const [namespace, action, ...args] = button.custom_id.split(':');
    const handler = transfer.buttons[`${namespace}:${action}`];
    if (handler === undefined) throw new Error(`no handler for ${button.custom_id}`);
    expect(button.custom_id.length).toBeLessThanOrEqual(100);
    const interaction = click(member);
    return {
      deferral: handler.defer(interaction, args),
      reply: await handler.run(interaction, args, context),
    };
  }

  return {
    store,
    records: recordStoreOf(store),
    settings,
    feeds,
    context,
    transfer,
    searches,
    command,
    press,
    setUpload(bytes: Uint8Array | string) {
      upload = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
    },
    exportNow: () => transfer.export(command(), context, GUILD),
    importNow: (size?: number) => transfer.import(command(size), context, GUILD),
  };
}

const buttonSchema = z.object({ label: z.string(), custom_id: z.string() });

/** Every button of a message's components, wherever it sits. */
function buttonsOf(components: unknown): z.infer<typeof buttonSchema>[] {
  const found: z.infer<typeof buttonSchema>[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const button = buttonSchema.safeParse(node);
    if (button.success) found.push(button.data);
    visit(Reflect.get(node, 'components'));
  };
  visit(components);
  return found;
}

/** The body's text and its one file, of an answer that must be a message. */
export function messageOf(reply: Reply) {
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  const body = reply.body;
  return { content: 'content' in body ? (body.content ?? '') : '', files: body.files ?? [], body };
}
