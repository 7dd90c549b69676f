/**
 * Components V2 and string selects on the local Discord, over real HTTP from an unmodified discord.js
 * client or its REST: what Discord refuses (content or embeds beside IS_COMPONENTS_V2, V2 types without
 * the flag, the 40-component and 4,000-character totals, each component's own limits), how the flag lives
 * on a message (kept through edits, set by the edit that fills a deferred reply, never by the defer), the
 * tree as recorded and as sent back, `sendSelect`, and the readers of v2.ts.
 */
import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  ComponentType,
  ContainerBuilder,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  MediaGalleryBuilder,
  MediaGalleryItemBuilder,
  MessageFlags,
  REST,
  Routes,
  SectionBuilder,
  SeparatorBuilder,
  StringSelectMenuBuilder,
  TextDisplayBuilder,
  ThumbnailBuilder,
  type APIMessage,
  type Interaction,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type InteractionHandle } from './index.js';
import {
  allComponents,
  componentCount,
  componentsOfType,
  galleryItemsOf,
  isComponentsV2,
  textLength,
  textOf,
} from './v2.js';
import { schemaIssues, type SchemaName } from './validate.js';

const V2 = MessageFlags.IsComponentsV2;
const NO_MENTIONS = { parse: [] as [] };

let fake: FakeDiscord | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake?.close();
  fake = undefined;
});

async function startFake(): Promise<FakeDiscord> {
  fake = await startFakeDiscord();
  return fake;
}

/** An unmodified discord.js client; `seen` collects the interactions it receives. */
async function loggedIn(f: FakeDiscord): Promise<{ client: Client; seen: Interaction[] }> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
    rest: { api: f.apiUrl },
    allowedMentions: NO_MENTIONS,
  });
  clients.push(client);
  const seen: Interaction[] = [];
  client.on(Events.InteractionCreate, (interaction) => seen.push(interaction));
  const ready = once(client, Events.ClientReady);
  await client.login(f.token);
  await ready;
  return { client, seen };
}

function received(f: FakeDiscord, seen: Interaction[], handle: InteractionHandle): Promise<Interaction> {
  return f.waitFor(() => seen.find((i) => i.id === handle.id));
}

function restOf(f: FakeDiscord): REST {
  return new REST({ api: f.apiUrl }).setToken(f.token);
}

type Refusal = { status: number; code: number | string; errors: unknown } | 'ok';

/** The Discord error a promise rejects with (status, JSON code, error tree), or 'ok'. */
async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof DiscordAPIError) {
      return {
        status: error.status,
        code: error.code,
        errors: (error.rawError as { errors?: unknown }).errors,
      };
    }
    throw error;
  }
}

/** The `{ code, message }`s Discord's error tree holds at `path`. */
function errorsAt(result: Refusal, path: readonly (string | number)[]): { code: string; message: string }[] {
  if (result === 'ok') return [];
  let node: unknown = result.errors;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null) return [];
    node = (node as Record<string, unknown>)[String(segment)];
  }
  if (typeof node !== 'object' || node === null) return [];
  return (node as { _errors?: { code: string; message: string }[] })._errors ?? [];
}

const codesAt = (result: Refusal, path: readonly (string | number)[]): string[] =>
  errorsAt(result, path).map((e) => e.code);

// Raw component JSON, for bodies discord.js's builders would refuse before sending.
const text = (content: string): Record<string, unknown> => ({ type: 10, content });
const container = (...components: unknown[]): Record<string, unknown> => ({ type: 17, components });
const button = (customId: string): Record<string, unknown> => ({
  type: 2,
  style: 2,
  label: customId,
  custom_id: customId,
});
const row = (...components: unknown[]): Record<string, unknown> => ({ type: 1, components });
const thumbnail = (url: string): Record<string, unknown> => ({ type: 11, media: { url } });
const section = (accessory: unknown, ...texts: unknown[]): Record<string, unknown> => ({
  type: 9,
  components: texts,
  accessory,
});
const gallery = (...urls: string[]): Record<string, unknown> => ({
  type: 12,
  items: urls.map((url) => ({ media: { url } })),
});
const select = (customId: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 3,
  custom_id: customId,
  options: [
    { label: 'One', value: '1' },
    { label: 'Two', value: '2' },
    { label: 'Three', value: '3' },
  ],
  ...extra,
});
const v2Body = (...components: unknown[]): Record<string, unknown> => ({
  flags: V2,
  components,
  allowed_mentions: NO_MENTIONS,
});

/**
 * An image card as a bot would build it with discord.js's builders: a container (accent colour) of a
 * title, a section with a thumbnail, a gallery of two, a separator, a section with a button, a row with a
 * string select (up to two values) and a row of two buttons. 15 components, depth-first:
 * container 1, title 2, section 3, its text 4, thumbnail 5, gallery 6, separator 7, section 8, its text 9,
 * button `open` 10, row 11, select `pick` 12, row 13, buttons `prev` 14 and `next` 15.
 */
function card(): ContainerBuilder {
  return new ContainerBuilder()
    .setAccentColor(0x3366ff)
    .addTextDisplayComponents(new TextDisplayBuilder().setContent('# Image 1'))
    .addSectionComponents(
      new SectionBuilder()
        .addTextDisplayComponents(new TextDisplayBuilder().setContent('by artist:x'))
        .setThumbnailAccessory(new ThumbnailBuilder().setURL('https://img.test/1/thumb.png')),
    )
    .addMediaGalleryComponents(
      new MediaGalleryBuilder().addItems(
        new MediaGalleryItemBuilder().setURL('https://img.test/1/full.png').setDescription('the image'),
        new MediaGalleryItemBuilder().setURL('https://img.test/1/full.mp4').setSpoiler(true),
      ),
    )
    .addSeparatorComponents(new SeparatorBuilder())
    .addSectionComponents(
      new SectionBuilder()
        .addTextDisplayComponents(new TextDisplayBuilder().setContent('Open it'))
        .setButtonAccessory(
          new ButtonBuilder().setCustomId('open').setLabel('Open').setStyle(ButtonStyle.Secondary),
        ),
    )
    .addActionRowComponents(
      new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId('pick')
          .setPlaceholder('Pick')
          .setMaxValues(2)
          .addOptions(
            { label: 'One', value: '1' },
            { label: 'Two', value: '2' },
            { label: 'Three', value: '3' },
          ),
      ),
    )
    .addActionRowComponents(
      new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId('prev').setLabel('Prev').setStyle(ButtonStyle.Secondary),
        new ButtonBuilder().setCustomId('next').setLabel('Next').setStyle(ButtonStyle.Primary),
      ),
    );
}

/** A V2 message in the plain channel, through REST; its id. */
async function postV2(f: FakeDiscord, ...components: unknown[]): Promise<string> {
  const answer = (await restOf(f).post(Routes.channelMessages(f.guild.channels.plain), {
    body: v2Body(...components),
  })) as APIMessage;
  return answer.id;
}

describe('fake Discord: Components V2 messages', () => {
  it('GIVEN a card built with discord.js builders WHEN channel.send sends it with IsComponentsV2 THEN it is accepted, recorded as sent, and sent back with ids', async () => {
    const f = await startFake();
    const { client } = await loggedIn(f);
    const channel = await client.channels.fetch(f.guild.channels.plain);
    if (channel === null || !channel.isSendable()) throw new Error('plain is not sendable');
    const sentTree = [card().toJSON()];
    const sent = await channel.send({ flags: V2, components: [card()], allowedMentions: NO_MENTIONS });
    expect(f.violations).toEqual([]);
    const recorded = f.message(sent.id);
    if (recorded === undefined) throw new Error('not recorded');
    expect(isComponentsV2(recorded)).toBe(true);
    expect(recorded.content).toBe('');
    expect(recorded.components).toEqual(sentTree);
    // discord.js read the answer as Discord's: the flag, a container, ids numbered depth-first.
    expect(sent.flags.has(V2)).toBe(true);
    expect(sent.components[0]?.type).toBe(ComponentType.Container);
    const answer = (await restOf(f).get(
      Routes.channelMessage(f.guild.channels.plain, sent.id),
    )) as APIMessage;
    expect(allComponents(answer).map((c) => c['id'])).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ]);
    expect(componentsOfType(answer, ComponentType.StringSelect).map((c) => c['id'])).toEqual([12]);
    expect(allComponents(recorded).every((c) => c['id'] === undefined)).toBe(true);
  });

  it('GIVEN the card THEN textOf, galleryItemsOf, componentsOfType, componentCount and textLength read it depth-first', async () => {
    const f = await startFake();
    const id = await postV2(f, card().toJSON());
    const recorded = f.message(id);
    if (recorded === undefined) throw new Error('not recorded');
    expect(textOf(recorded)).toBe('# Image 1\nby artist:x\nOpen it');
    expect(textLength(recorded)).toBe('# Image 1by artist:xOpen it'.length);
    expect(galleryItemsOf(recorded)).toEqual([
      { media: { url: 'https://img.test/1/full.png' }, description: 'the image' },
      { media: { url: 'https://img.test/1/full.mp4' }, spoiler: true },
    ]);
    expect(componentsOfType(recorded, ComponentType.Button).map((b) => b['custom_id'])).toEqual([
      'open',
      'prev',
      'next',
    ]);
    expect(componentsOfType(recorded, ComponentType.Thumbnail)).toHaveLength(1);
    expect(componentCount(recorded)).toBe(15);
    expect(isComponentsV2({ flags: 0, components: [] })).toBe(false);
  });

  it('GIVEN a gallery item at attachment://name with the file uploaded THEN it is accepted and sent back resolved to the attachment', async () => {
    const f = await startFake();
    const { client } = await loggedIn(f);
    const channel = await client.channels.fetch(f.guild.channels.plain);
    if (channel === null || !channel.isSendable()) throw new Error('plain is not sendable');
    const sent = await channel.send({
      flags: V2,
      components: [
        new MediaGalleryBuilder().addItems(new MediaGalleryItemBuilder().setURL('attachment://cover.png')),
      ],
      files: [{ attachment: Buffer.from('png bytes'), name: 'cover.png' }],
      allowedMentions: NO_MENTIONS,
    });
    expect(f.violations).toEqual([]);
    const answer = (await restOf(f).get(
      Routes.channelMessage(f.guild.channels.plain, sent.id),
    )) as APIMessage;
    const [attachment] = answer.attachments;
    expect(galleryItemsOf(answer)[0]?.media).toMatchObject({
      url: attachment?.url,
      attachment_id: attachment?.id,
    });
    expect(galleryItemsOf(f.message(sent.id) ?? {})).toEqual([{ media: { url: 'attachment://cover.png' } }]);
  });

  it('GIVEN exactly 40 components and exactly 4,000 characters of text THEN Discord accepts them', async () => {
    const f = await startFake();
    const forty = container(...Array.from({ length: 39 }, (_, i) => text(`line ${i}`)));
    await postV2(f, forty);
    await postV2(f, text('a'.repeat(2000)), text('b'.repeat(2000)));
    expect(f.violations).toEqual([]);
  });

  const tooLong = 'x'.repeat(2049 - 'https://img.test/'.length);
  it.each<[string, Record<string, unknown>, (string | number)[], string]>([
    [
      'content beside the flag',
      { ...v2Body(text('a')), content: 'hi' },
      ['content'],
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ],
    [
      'embeds beside the flag',
      { ...v2Body(text('a')), embeds: [{ title: 't' }] },
      ['embeds'],
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ],
    [
      'a poll beside the flag',
      { ...v2Body(text('a')), poll: { question: { text: 'q' }, answers: [{ poll_media: { text: 'a' } }] } },
      ['poll'],
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ],
    [
      'stickers beside the flag',
      { ...v2Body(text('a')), sticker_ids: ['1'] },
      ['sticker_ids'],
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ],
    [
      '41 components, nested ones counted',
      v2Body(container(...Array.from({ length: 40 }, (_, i) => text(`line ${i}`)))),
      ['components'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      '4,001 characters over two text displays',
      v2Body(text('a'.repeat(2000)), text('b'.repeat(2001))),
      ['components'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a text display of 4,001 characters',
      v2Body(container(text('a'.repeat(4001)))),
      ['components', 0, 'components', 0, 'content'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    ['an empty text display', v2Body(text('')), ['components', 0, 'content'], 'BASE_TYPE_MIN_LENGTH'],
    [
      'a gallery of 11 items',
      v2Body(gallery(...Array.from({ length: 11 }, (_, i) => `https://img.test/${i}.png`))),
      ['components', 0, 'items'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    ['an empty gallery', v2Body(gallery()), ['components', 0, 'items'], 'BASE_TYPE_MIN_LENGTH'],
    [
      'a gallery item description of 1,025 characters',
      v2Body({
        type: 12,
        items: [{ media: { url: 'https://img.test/1.png' }, description: 'd'.repeat(1025) }],
      }),
      ['components', 0, 'items', 0, 'description'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a media url of another scheme',
      v2Body(gallery('ftp://img.test/1.png')),
      ['components', 0, 'items', 0, 'media', 'url'],
      'URL_TYPE_INVALID_SCHEME',
    ],
    [
      'a media url of 2,049 characters',
      v2Body(gallery(`https://img.test/${tooLong}`)),
      ['components', 0, 'items', 0, 'media', 'url'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a thumbnail url of another scheme',
      v2Body(section(thumbnail('data:image/png;base64,AAAA'), text('a'))),
      ['components', 0, 'accessory', 'media', 'url'],
      'URL_TYPE_INVALID_SCHEME',
    ],
    [
      'a section of four text displays',
      v2Body(section(button('b'), text('1'), text('2'), text('3'), text('4'))),
      ['components', 0, 'components'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a section without an accessory',
      v2Body({ type: 9, components: [text('a')] }),
      ['components', 0, 'accessory'],
      'BASE_TYPE_REQUIRED',
    ],
    [
      'a section whose accessory is a text display',
      v2Body(section(text('no'), text('a'))),
      ['components', 0, 'accessory'],
      'UNION_TYPE_CHOICES',
    ],
    [
      'a container in a container',
      v2Body(container(container(text('a')))),
      ['components', 0, 'components', 0],
      'UNION_TYPE_CHOICES',
    ],
    [
      'a thumbnail at the top level',
      v2Body(thumbnail('https://img.test/1.png')),
      ['components', 0],
      'UNION_TYPE_CHOICES',
    ],
    [
      'an accent colour above 0xFFFFFF',
      v2Body({ ...container(text('a')), accent_color: 0x1000000 }),
      ['components', 0, 'accent_color'],
      'NUMBER_TYPE_MAX',
    ],
    [
      'a negative accent colour',
      v2Body({ ...container(text('a')), accent_color: -1 }),
      ['components', 0, 'accent_color'],
      'NUMBER_TYPE_MIN',
    ],
    [
      'a custom_id used twice, once in a section, once in a row of a container',
      v2Body(container(section(button('same'), text('a')), row(button('same')))),
      ['components', 0, 'components', 1, 'components', 0, 'custom_id'],
      'COMPONENT_CUSTOM_ID_DUPLICATED',
    ],
    [
      'a button beside a select in a row of a container',
      v2Body(container(row(select('s'), button('b')))),
      ['components', 0, 'components', 0, 'components', 1],
      'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
    ],
    [
      'six buttons in a row of a container',
      v2Body(container(row(...['a', 'b', 'c', 'd', 'e', 'f'].map(button)))),
      ['components', 0, 'components', 0, 'components'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a file component with an https url',
      v2Body({ type: 13, file: { url: 'https://img.test/1.png' } }),
      ['components', 0, 'file', 'url'],
      'URL_TYPE_INVALID_SCHEME',
    ],
  ])(
    'GIVEN %s THEN Discord refuses the message: 400 50035 with the error at its path',
    async (_name, body, path, code) => {
      const f = await startFake();
      const result = await refusal(restOf(f).post(Routes.channelMessages(f.guild.channels.plain), { body }));
      expect(result).toMatchObject({ status: 400, code: 50035 });
      expect(codesAt(result, path)).toContain(code);
      expect(f.channelMessages('plain')).toEqual([]);
      expect(f.violations.map((v) => v.code)).toEqual([50035]);
    },
  );

  it.each<[string, unknown[]]>([
    ['a container', [container(text('a'))]],
    ['a text display', [text('a')]],
    ['a media gallery', [gallery('https://img.test/1.png')]],
  ])(
    'GIVEN %s at the top level without the flag THEN Discord refuses it: UNION_TYPE_CHOICES (1,)',
    async (_name, components) => {
      const f = await startFake();
      const body = { content: 'classic', components, allowed_mentions: NO_MENTIONS };
      const result = await refusal(restOf(f).post(Routes.channelMessages(f.guild.channels.plain), { body }));
      expect(result).toMatchObject({ status: 400, code: 50035 });
      expect(errorsAt(result, ['components', 0])).toEqual([
        { code: 'UNION_TYPE_CHOICES', message: 'Value of field "type" must be one of (1,).' },
      ]);
    },
  );

  it('GIVEN a classic message THEN its limits stay: six action rows refused, five with content and a select accepted', async () => {
    const f = await startFake();
    const rows = (n: number): unknown[] => Array.from({ length: n }, (_, i) => row(button(`b${i}`)));
    const six = await refusal(
      restOf(f).post(Routes.channelMessages(f.guild.channels.plain), {
        body: { content: 'x', components: rows(6), allowed_mentions: NO_MENTIONS },
      }),
    );
    expect(codesAt(six, ['components'])).toContain('BASE_TYPE_MAX_LENGTH');
    await restOf(f).post(Routes.channelMessages(f.guild.channels.plain), {
      body: { content: 'x', components: [...rows(4), row(select('s'))], allowed_mentions: NO_MENTIONS },
    });
    expect(f.channelMessages('plain')).toHaveLength(1);
  });
});

describe('fake Discord: every way a bot sends or edits checks Components V2', () => {
  interface Route {
    readonly name: string;
    /** Where the message sits in the request body (callbacks: under `data`). */
    readonly at: readonly string[];
    /** The request edits a message that is already V2. */
    readonly editsV2: boolean;
    readonly send: (f: FakeDiscord, body: Record<string, unknown>) => Promise<unknown>;
  }
  const callback = (f: FakeDiscord, h: InteractionHandle, type: number, data?: unknown): Promise<unknown> =>
    restOf(f).post(Routes.interactionCallback(h.id, h.token), {
      body: data === undefined ? { type } : { type, data },
      auth: false,
    });
  const routes: Route[] = [
    {
      name: 'a channel message',
      at: [],
      editsV2: false,
      send: (f, body) => restOf(f).post(Routes.channelMessages(f.guild.channels.plain), { body }),
    },
    {
      name: 'an edit of a V2 channel message',
      at: [],
      editsV2: true,
      send: async (f, body) => {
        const id = await postV2(f, text('first'));
        return restOf(f).patch(Routes.channelMessage(f.guild.channels.plain, id), { body });
      },
    },
    {
      name: 'an interaction reply (callback 4)',
      at: ['data'],
      editsV2: false,
      send: (f, body) => callback(f, f.sendCommand({ name: 'card', channel: 'plain' }), 4, body),
    },
    {
      name: 'an update of the clicked V2 message (callback 7)',
      at: ['data'],
      editsV2: true,
      send: async (f, body) => {
        const id = await postV2(f, container(text('first'), row(button('go'))));
        return callback(f, f.sendButton({ message: { id }, customId: 'go' }), 7, body);
      },
    },
    {
      name: 'a follow-up',
      at: [],
      editsV2: false,
      send: async (f, body) => {
        const h = f.sendCommand({ name: 'card', channel: 'plain' });
        await callback(f, h, 4, { content: 'first', allowed_mentions: NO_MENTIONS });
        return restOf(f).post(Routes.webhook(f.applicationId, h.token), { body, auth: false });
      },
    },
    {
      name: 'an edit of @original after a defer',
      at: [],
      editsV2: false,
      send: async (f, body) => {
        const h = f.sendCommand({ name: 'card', channel: 'plain' });
        await callback(f, h, 5);
        return restOf(f).patch(Routes.webhookMessage(f.applicationId, h.token, '@original'), {
          body,
          auth: false,
        });
      },
    },
  ];
  const named = routes.map((route) => [route.name, route] as const);

  it.each(named)(
    'GIVEN %s WHEN the V2 body also has content THEN 50035; WHEN it is well formed THEN accepted',
    async (_name, route) => {
      const f = await startFake();
      const bad = await refusal(route.send(f, { ...v2Body(container(text('a'))), content: 'also this' }));
      expect(bad).toMatchObject({ status: 400, code: 50035 });
      expect(codesAt(bad, [...route.at, 'content'])).toEqual([
        'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
      ]);
      const before = f.violations.length;
      expect(await refusal(route.send(f, v2Body(card().toJSON())))).toBe('ok');
      // Interactions refused above may go unanswered: only refusals count here.
      expect(f.violations.slice(before).filter((v) => v.kind !== 'late-answer')).toEqual([]);
    },
  );

  it.each(named)(
    'GIVEN %s WHEN a container comes with flags that lack IS_COMPONENTS_V2 THEN UNION_TYPE_CHOICES (1,)',
    async (_name, route) => {
      // A classic message reads components as classic without flags; an edit of a V2 message only when
      // the edit names flags without the bit (discord-net/Discord.Net#3132).
      const f = await startFake();
      const body = {
        components: [container(text('a'))],
        allowed_mentions: NO_MENTIONS,
        ...(route.editsV2 ? { flags: 0 } : {}),
      };
      const result = await refusal(route.send(f, body));
      expect(errorsAt(result, [...route.at, 'components', 0])).toEqual([
        { code: 'UNION_TYPE_CHOICES', message: 'Value of field "type" must be one of (1,).' },
      ]);
    },
  );
});

describe('fake Discord: the IS_COMPONENTS_V2 flag over a message’s life', () => {
  it('GIVEN deferReply then editReply({ flags: IsComponentsV2, components }) THEN the reply becomes V2 and the defer did not set it', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'card', channel: 'plain' });
    const interaction = await received(f, seen, handle);
    if (!interaction.isChatInputCommand()) throw new Error('not a command');
    await interaction.deferReply();
    expect(isComponentsV2(handle.replyMessage() ?? {})).toBe(false);
    await interaction.editReply({ flags: V2, components: [card()] });
    const reply = await handle.finalReply();
    expect(isComponentsV2(reply)).toBe(true);
    expect(reply.flags & MessageFlags.Loading).toBe(0);
    expect(textOf(reply)).toContain('# Image 1');
    expect(f.violations).toEqual([]);
  });

  it('GIVEN callback 5 asking for IS_COMPONENTS_V2 THEN Discord drops it from the loading message (discord-api-docs#7910), and an edit with containers but no flag is refused', async () => {
    const f = await startFake();
    const h = f.sendCommand({ name: 'card', channel: 'plain' });
    await restOf(f).post(Routes.interactionCallback(h.id, h.token), {
      body: { type: 5, data: { flags: V2 | MessageFlags.Ephemeral } },
      auth: false,
    });
    const loading = h.replyMessage();
    expect(loading?.flags).toBe(MessageFlags.Loading | MessageFlags.Ephemeral);
    const edit = refusal(
      restOf(f).patch(Routes.webhookMessage(f.applicationId, h.token, '@original'), {
        body: { components: [container(text('a'))] },
        auth: false,
      }),
    );
    expect(codesAt(await edit, ['components', 0])).toEqual(['UNION_TYPE_CHOICES']);
  });

  it('GIVEN a deferred reply WHEN the first follow-up is V2 THEN it fills in the loading message as V2, ephemeral kept', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'card', channel: 'plain' });
    const interaction = await received(f, seen, handle);
    if (!interaction.isChatInputCommand()) throw new Error('not a command');
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    await interaction.followUp({ flags: V2, components: [new TextDisplayBuilder().setContent('done')] });
    const reply = await handle.finalReply();
    expect(reply.flags).toBe(V2 | MessageFlags.Ephemeral);
    expect(textOf(reply)).toBe('done');
    expect(handle.followUps()).toEqual([]);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN reply({ flags: Ephemeral | IsComponentsV2 }) THEN the reply is both', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const handle = f.sendCommand({ name: 'card', channel: 'plain' });
    const interaction = await received(f, seen, handle);
    if (!interaction.isChatInputCommand()) throw new Error('not a command');
    await interaction.reply({ flags: MessageFlags.Ephemeral | V2, components: [card()] });
    const reply = await handle.finalReply();
    expect(reply.flags).toBe(MessageFlags.Ephemeral | V2);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a V2 message WHEN edited without flags THEN it stays V2; with content THEN refused; with flags 0 and a container THEN refused and still V2', async () => {
    const f = await startFake();
    const { client } = await loggedIn(f);
    const channel = await client.channels.fetch(f.guild.channels.plain);
    if (channel === null || !channel.isSendable()) throw new Error('plain is not sendable');
    const sent = await channel.send({ flags: V2, components: [card()], allowedMentions: NO_MENTIONS });
    const edited = await sent.edit({ components: [new TextDisplayBuilder().setContent('edited')] });
    expect(edited.flags.has(V2)).toBe(true);
    expect(textOf(f.message(sent.id) ?? {})).toBe('edited');
    expect(isComponentsV2(f.message(sent.id) ?? {})).toBe(true);

    const withContent = await refusal(sent.edit({ content: 'plain text again' }));
    expect(codesAt(withContent, ['content'])).toEqual([
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ]);
    const flagsZero = await refusal(
      restOf(f).patch(Routes.channelMessage(f.guild.channels.plain, sent.id), {
        body: { flags: 0, components: [container(text('a'))] },
      }),
    );
    expect(codesAt(flagsZero, ['components', 0])).toEqual(['UNION_TYPE_CHOICES']);
    // An edit that names flags without the bit changes nothing of it: the flag cannot be taken off.
    await restOf(f).patch(Routes.channelMessage(f.guild.channels.plain, sent.id), {
      body: { flags: 0, components: [row(button('only'))] },
    });
    expect(isComponentsV2(f.message(sent.id) ?? {})).toBe(true);
  });

  it('GIVEN a classic message with content WHEN an edit adds the flag without emptying the content THEN refused; with content null THEN it becomes V2', async () => {
    const f = await startFake();
    const { client } = await loggedIn(f);
    const channel = await client.channels.fetch(f.guild.channels.plain);
    if (channel === null || !channel.isSendable()) throw new Error('plain is not sendable');
    const sent = await channel.send({ content: 'classic', allowedMentions: NO_MENTIONS });
    const keepsContent = await refusal(sent.edit({ flags: V2, components: [card()] }));
    expect(codesAt(keepsContent, ['content'])).toEqual([
      'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
    ]);
    expect(isComponentsV2(f.message(sent.id) ?? {})).toBe(false);
    // discord.js sends `content: null` as "": an empty content clears it.
    const upgraded = await sent.edit({ content: null, flags: V2, components: [card()] });
    expect(upgraded.flags.has(V2)).toBe(true);
    expect(f.message(sent.id)?.content).toBe('');
  });

  it('GIVEN a classic message with an embed WHEN an edit adds the flag THEN embeds must be emptied in the same edit', async () => {
    const f = await startFake();
    const rest = restOf(f);
    const classic = (await rest.post(Routes.channelMessages(f.guild.channels.plain), {
      body: { embeds: [{ title: 'card' }], allowed_mentions: NO_MENTIONS },
    })) as APIMessage;
    const route = Routes.channelMessage(f.guild.channels.plain, classic.id);
    const kept = await refusal(rest.patch(route, { body: v2Body(text('a')) }));
    expect(codesAt(kept, ['embeds'])).toEqual(['MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2']);
    await rest.patch(route, { body: { ...v2Body(text('a')), embeds: [] } });
    expect(f.message(classic.id)?.embeds).toEqual([]);
    expect(isComponentsV2(f.message(classic.id) ?? {})).toBe(true);
  });
});

describe('fake Discord: string selects', () => {
  async function cardReply(f: FakeDiscord, seen: Interaction[]) {
    const handle = f.sendCommand({ name: 'card', channel: 'plain' });
    const interaction = await received(f, seen, handle);
    if (!interaction.isChatInputCommand()) throw new Error('not a command');
    await interaction.reply({ flags: V2, components: [card()] });
    return handle.finalReply();
  }

  it('GIVEN a select inside a container WHEN a member picks two values THEN discord.js sees a string select interaction, and a deferred update then edit keeps the message V2', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const message = await cardReply(f, seen);
    const pick = f.sendSelect({
      message,
      customId: 'pick',
      values: ['1', '3'],
      userId: f.guild.otherMemberId,
    });
    expect(pick.payload['data']).toEqual({
      id: 12,
      custom_id: 'pick',
      component_type: 3,
      values: ['1', '3'],
    });
    const interaction = await received(f, seen, pick);
    if (!interaction.isStringSelectMenu()) throw new Error('not a string select');
    expect(interaction.customId).toBe('pick');
    expect(interaction.values).toEqual(['1', '3']);
    expect(interaction.user.id).toBe(f.guild.otherMemberId);
    expect(interaction.message.id).toBe(message.id);
    expect(interaction.message.flags.has(V2)).toBe(true);
    expect(interaction.message.components[0]?.type).toBe(ComponentType.Container);
    const component = interaction.component;
    expect('customId' in component ? component.customId : component.custom_id).toBe('pick');
    await interaction.deferUpdate();
    await interaction.editReply({ components: [new TextDisplayBuilder().setContent('picked 1 and 3')] });
    const updated = await pick.finalReply();
    expect(updated.id).toBe(message.id);
    expect(isComponentsV2(updated)).toBe(true);
    expect(textOf(updated)).toBe('picked 1 and 3');
    expect(pick.responses.map((r) => `${r.kind}${r.callbackType ?? ''}:${r.status}`)).toEqual([
      'callback6:204',
      'edit-original:200',
    ]);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a select WHEN the bot answers with a deferred ephemeral reply (5) then a V2 edit, or with update (7) THEN both work as for buttons', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const message = await cardReply(f, seen);
    const first = f.sendSelect({ message, customId: 'pick', values: ['2'] });
    const privately = await received(f, seen, first);
    if (!privately.isStringSelectMenu()) throw new Error('not a string select');
    await privately.deferReply({ flags: MessageFlags.Ephemeral });
    await privately.editReply({ flags: V2, components: [new TextDisplayBuilder().setContent('only you')] });
    const reply = await first.finalReply();
    expect(reply.id).not.toBe(message.id);
    expect(reply.flags).toBe(MessageFlags.Ephemeral | V2);

    const second = f.sendSelect({ message, customId: 'pick', values: ['1'] });
    const update = await received(f, seen, second);
    if (!update.isStringSelectMenu()) throw new Error('not a string select');
    await update.update({ components: [card().setAccentColor(0xff0000)] });
    const updated = await second.finalReply();
    expect(updated.id).toBe(message.id);
    expect(isComponentsV2(updated)).toBe(true);
    expect(componentsOfType(updated, ComponentType.Container)[0]?.['accent_color']).toBe(0xff0000);
    expect(f.violations).toEqual([]);
  });

  it('GIVEN a button in a section accessory inside a container THEN sendButton finds it and discord.js sees a button', async () => {
    const f = await startFake();
    const { seen } = await loggedIn(f);
    const message = await cardReply(f, seen);
    const click = f.sendButton({ message, customId: 'open' });
    expect(click.payload['data']).toEqual({ id: 10, custom_id: 'open', component_type: 2 });
    const interaction = await received(f, seen, click);
    expect(interaction.isButton() && interaction.customId).toBe('open');
  });

  it('GIVEN picks no member could make THEN sendSelect and sendButton throw', async () => {
    const f = await startFake();
    const id = await postV2(
      f,
      container(
        row(select('pick', { min_values: 1, max_values: 2 })),
        row(select('off', { disabled: true })),
      ),
      row(button('go')),
    );
    const message = { id };
    expect(() => f.sendSelect({ message, customId: 'pick', values: ['4'] })).toThrow(/offers no 4/);
    expect(() => f.sendSelect({ message, customId: 'pick', values: ['1', '2', '3'] })).toThrow(
      /takes 1..2 values/,
    );
    expect(() => f.sendSelect({ message, customId: 'pick', values: [] })).toThrow(/takes 1..2 values/);
    expect(() => f.sendSelect({ message, customId: 'pick', values: ['1', '1'] })).toThrow(/at most once/);
    expect(() => f.sendSelect({ message, customId: 'off', values: ['1'] })).toThrow(/disabled/);
    expect(() => f.sendSelect({ message, customId: 'go', values: ['1'] })).toThrow(/not a string select/);
    expect(() => f.sendSelect({ message, customId: 'nope', values: ['1'] })).toThrow(/no component nope/);
    expect(() => f.sendButton({ message, customId: 'pick' })).toThrow(/not a button/);
    expect(() => f.sendSelect({ message: { id: '1' }, customId: 'pick', values: ['1'] })).toThrow(
      /unknown message/,
    );
  });

  const options = (n: number): { label: string; value: string }[] =>
    Array.from({ length: n }, (_, i) => ({ label: `L${i}`, value: `v${i}` }));
  it.each<[string, Record<string, unknown>, (string | number)[], string]>([
    ['a custom_id of 101 characters', select('s'.repeat(101)), ['custom_id'], 'BASE_TYPE_MAX_LENGTH'],
    ['no options', select('s', { options: [] }), ['options'], 'BASE_TYPE_MIN_LENGTH'],
    ['26 options', select('s', { options: options(26) }), ['options'], 'BASE_TYPE_MAX_LENGTH'],
    [
      'an option label of 101 characters',
      select('s', { options: [{ label: 'l'.repeat(101), value: 'v' }] }),
      ['options', 0, 'label'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'an empty option value',
      select('s', { options: [{ label: 'l', value: '' }] }),
      ['options', 0, 'value'],
      'BASE_TYPE_MIN_LENGTH',
    ],
    [
      'an option description of 101 characters',
      select('s', { options: [{ label: 'l', value: 'v', description: 'd'.repeat(101) }] }),
      ['options', 0, 'description'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'a placeholder of 151 characters',
      select('s', { placeholder: 'p'.repeat(151) }),
      ['placeholder'],
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'min_values 26',
      select('s', { min_values: 26, options: options(25) }),
      ['min_values'],
      'NUMBER_TYPE_MAX',
    ],
    ['max_values 0', select('s', { max_values: 0 }), ['max_values'], 'NUMBER_TYPE_MIN'],
    [
      'max_values above the number of options',
      select('s', { max_values: 4 }),
      ['max_values'],
      'SELECT_COMPONENT_TOO_FEW_OPTIONS',
    ],
    [
      'min_values above max_values',
      select('s', { min_values: 3, max_values: 2 }),
      ['min_values'],
      'SELECT_COMPONENT_MIN_VALUES_ABOVE_MAX',
    ],
    [
      'two options of one value',
      select('s', {
        options: [
          { label: 'a', value: 'v' },
          { label: 'b', value: 'v' },
        ],
      }),
      ['options', 1, 'value'],
      'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED',
    ],
  ])(
    'GIVEN a string select with %s THEN Discord refuses it, classic or V2',
    async (_name, bad, path, code) => {
      const f = await startFake();
      const rest = restOf(f);
      const classic = await refusal(
        rest.post(Routes.channelMessages(f.guild.channels.plain), {
          body: { content: 'pick', components: [row(bad)], allowed_mentions: NO_MENTIONS },
        }),
      );
      expect(codesAt(classic, ['components', 0, 'components', 0, ...path])).toContain(code);
      const inContainer = await refusal(
        rest.post(Routes.channelMessages(f.guild.channels.plain), { body: v2Body(container(row(bad))) }),
      );
      expect(codesAt(inContainer, ['components', 0, 'components', 0, 'components', 0, ...path])).toContain(
        code,
      );
    },
  );
});

describe("fake Discord: Discord's OpenAPI description and Components V2", () => {
  const schemas: [SchemaName, (body: Record<string, unknown>) => unknown][] = [
    ['MessageCreateRequest', (b) => b],
    ['MessageEditRequestPartial', (b) => b],
    ['IncomingWebhookRequestPartial', (b) => b],
    ['IncomingWebhookUpdateRequestPartial', (b) => b],
    ['CreateMessageInteractionCallbackRequest', (b) => ({ type: 4, data: b })],
    ['UpdateMessageInteractionCallbackRequest', (b) => ({ type: 7, data: b })],
  ];
  it.each(schemas)(
    'GIVEN %s THEN the card passes and a broken component gives one error at its place',
    (name, wrap) => {
      expect(schemaIssues(name, wrap(v2Body(card().toJSON())))).toEqual([]);
      const broken = schemaIssues(
        name,
        wrap(v2Body(container(text('a'), section(button('b'), text('x'.repeat(4001)))))),
      );
      const prefix = name.includes('Callback') ? ['data'] : [];
      expect(broken).toEqual([
        {
          path: [...prefix, 'components', 0, 'components', 1, 'components', 0, 'content'],
          code: 'BASE_TYPE_MAX_LENGTH',
          message: 'Must be 4000 or fewer in length.',
        },
      ]);
    },
  );
});
