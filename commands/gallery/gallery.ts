/**
 * /gallery: the board's galleries. `query:` searches them (gallery-list.ts: a list to pick from, one
 * match opens at once); `id:` opens one by its number or its link (gallery-input.ts). An open gallery is
 * browsed as a /search is, by card or grid (gallery-open.ts); only the member who opened it pages, for 15
 * minutes, as /search's buttons do.
 */
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { z } from 'zod';
import { messageReply, type Incoming, type MessageBody, type Reply } from '../../src/discord/contract.js';
import { STATE_TTL_MS } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/failures.js';
import {
  type ButtonHandler,
  type Command,
  type CommandContext,
  LOOKUP_CONTEXTS,
  LOOKUP_INSTALLS,
  type SelectHandler,
} from '../shared/context.js';
import { pickSelect, targetPage, type PagingAction } from '../shared/image-paging.js';
import { sayIn } from '../shared/say.js';
import { formOfMessage } from '../shared/show-image.js';
import { galleryButton, galleryListCodec, galleryPickCodec } from './gallery-codec.js';
import { parseGalleryInput } from './gallery-input.js';
import { searchGalleryList } from './gallery-list.js';
import { openGallery, type OpenedGallery } from './gallery-open.js';

const VIEWS = ['card', 'grid'] as const;
const QUERY_MAX = 200;

function answersPrivately(interaction: Incoming<ChatInputCommandInteraction>): boolean {
  return interaction.options.getBoolean('private') ?? false;
}

function notOwner(): UserFacingError {
  return new UserFacingError(
    'paging.not-owner',
    'Only the person who searched can page through these results.',
  );
}

function asReply(opened: OpenedGallery): Reply {
  const body: MessageBody =
    opened.kind === 'page' ? opened.body : { content: opened.text, embeds: [], components: [] };
  return messageReply(body);
}

export const galleryCommand = {
  kind: 'chat',
  data: new SlashCommandBuilder()
    .setName('gallery')
    .setIntegrationTypes(LOOKUP_INSTALLS)
    .setContexts(LOOKUP_CONTEXTS)
    .setDescription('Find a gallery of the site and browse its images')
    .addStringOption((option) =>
      option
        .setName('query')
        .setDescription('Words of its title, e.g. "best of" (the site\'s gallery search syntax works)')
        .setMaxLength(QUERY_MAX),
    )
    .addStringOption((option) =>
      option.setName('id').setDescription('A gallery number or a link to a gallery').setMaxLength(QUERY_MAX),
    )
    .addStringOption((option) =>
      option
        .setName('view')
        .setDescription('One card per page (the default), or a grid of ten with a picker')
        .addChoices(VIEWS.map((view) => ({ name: view, value: view }))),
    )
    .addBooleanOption((option) =>
      option.setName('private').setDescription('Show the gallery only to you, with a button to post it'),
    )
    .toJSON(),
  ephemeral: answersPrivately,
  async execute(interaction, context) {
    const query = interaction.options.getString('query')?.trim() ?? '';
    const idText = interaction.options.getString('id')?.trim() ?? '';
    const grid = interaction.options.getString('view') === 'grid';
    const isPrivate = answersPrivately(interaction);
    const owner = interaction.user.id;
    const site = context.view.site;
    if (idText !== '') {
      const target = parseGalleryInput(idText, context.sites, site);
      if (target === undefined) {
        throw new UserFacingError(
          'gallery.bad-id',
          'Give a gallery number (like 1234) or a link to a gallery on a supported site.',
        );
      }
      return asReply(
        await openGallery({ ...target, page: 1, grid, private: isPrivate, owner }, context, {
          withButtons: true,
        }),
      );
    }
    if (query === '') {
      throw new UserFacingError(
        'gallery.no-input',
        'Give words to search galleries for, or a gallery number.',
      );
    }
    const found = await searchGalleryList(query, { site, owner, private: isPrivate, grid }, context);
    switch (found.kind) {
      case 'none':
        return messageReply({ content: found.text, embeds: [], components: [] });
      case 'list':
        return messageReply(found.body);
      case 'one':
        return asReply(
          await openGallery(
            { site, galleryId: found.gallery.id, page: 1, grid, private: isPrivate, owner },
            context,
            { withButtons: true, gallery: found.gallery },
          ),
        );
    }
  },
  buttons: galleryButtons(),
  selects: gallerySelects(),
} satisfies Command;

function galleryButtons(random: () => number = Math.random): Record<string, ButtonHandler> {
  const handler = (action: PagingAction): ButtonHandler => ({
    defer(interaction, args) {
      if (galleryButton.decode(args)?.owner !== interaction.user.id) return 'ephemeral';
      return action === 'pub' ? 'public' : 'update';
    },
    async run(interaction, args, context) {
      const state = galleryButton.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      if (state !== undefined && state.owner !== interaction.user.id) throw notOwner();
      const say = sayIn(context.locale);
      // The dead buttons come off the message (a "Post publicly" click has its own new reply instead).
      const dead = (text: string): Reply =>
        action === 'pub' ? { kind: 'private', text } : { kind: 'expired', text };
      if (state === undefined || context.now() - state.issuedAt > STATE_TTL_MS) {
        return dead(say('gallery.expired'));
      }
      const page = targetPage(action, state.page, state.total, random);
      const opened = await openGallery(
        { ...state, page, ...(action === 'pub' ? { private: false } : {}) },
        context,
        // Paging edits the message in place, which keeps its form; "Post publicly" is a new message.
        action === 'pub'
          ? { withButtons: false }
          : { withButtons: true, form: formOfMessage(interaction.message) },
      );
      if (opened.kind === 'empty') return dead(opened.text);
      return messageReply(opened.body);
    },
  });
  return {
    [galleryButton.key('prev')]: handler('prev'),
    [galleryButton.key('next')]: handler('next'),
    [galleryButton.key('rand')]: handler('rand'),
    [galleryButton.key('pub')]: handler('pub'),
  };
}

/**
 * The list's select opens the chosen gallery: in place for the member who searched (a grid beside the
 * list), as a private answer of their own (which they page) for anyone else. A grid's picker shows one image's card privately.
 */
function gallerySelects(): Record<string, SelectHandler> {
  const open: SelectHandler = {
    defer(interaction, args) {
      const choice = galleryListCodec.decode(args);
      if (choice?.owner !== interaction.user.id) return 'ephemeral';
      // The list is an embed message, and Discord does not turn one into Components V2 (a grid): a grid
      // opens as a new answer beside the list.
      if (choice.grid) return choice.private ? 'ephemeral' : 'public';
      return 'update';
    },
    async run(interaction, args, context: CommandContext) {
      const choice = galleryListCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite);
      const id = z.coerce.number().int().positive().safeParse(interaction.values[0]);
      if (choice === undefined || !id.success) {
        throw new UserFacingError('search.choice-gone', 'That choice no longer works.');
      }
      const mine = choice.owner === interaction.user.id;
      return asReply(
        await openGallery(
          {
            site: choice.site,
            galleryId: id.data,
            page: 1,
            grid: choice.grid,
            private: mine ? choice.private : true,
            owner: interaction.user.id,
          },
          context,
          mine && !choice.grid
            ? { withButtons: true, form: formOfMessage(interaction.message) }
            : { withButtons: true },
        ),
      );
    },
  };
  const pick = pickSelect(
    (args, context) =>
      galleryPickCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite)?.site,
  );
  return { [galleryListCodec.key('open')]: open, [galleryPickCodec.key('pick')]: pick };
}
