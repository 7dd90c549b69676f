/**
 * `/me link`, `/me unlink` and the keys' part of `/me show` and `/me forget` (issue 22 §1): a member links
 * their own board account by pasting its API key, kept sealed by commands/shared/member-keys.ts.
 *
 * - `/me link [site:]` answers privately with where the board shows the key and a button that opens the
 *   form (the runtime opens a modal only in answer to a component: src/discord/contract.ts
 *   `ComponentDeferral`). Linking off (no MEMBER_KEY_SECRET) is said in one sentence, before any form.
 * - The form's submit checks the text's shape (`memberKeyOf`), then asks the board with that key alone
 *   (`GET /filters/user`: 403 for a key it does not know, docs/board-behaviour.md "The API key"), and
 *   only then seals it. The custom ids carry the site's code and nothing else.
 * - The key itself goes to one place: the member client of the one site it was pasted for. No answer,
 *   error or log line here holds it (at most its last four characters, which `/me show` lists).
 */
import {
  ButtonStyle,
  ComponentType,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { z } from 'zod';
import { buttonCodec, segment, siteCode } from '../../src/discord/custom-id.js';
import { messageReply, type Incoming, type Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { MemberKeyRefusedError } from '../../src/errors.js';
import type { MessageParams, Translator } from '../../src/i18n/index.js';
import { KNOWN_SITES, type Site } from '../../src/philomena/sites.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { ButtonHandler, CommandContext, ModalHandler } from '../shared/context.js';
import { memberKeyOf, type LinkRefusal, type MemberKeys } from '../shared/member-keys.js';
import { DEFAULT_SITE_CHOICE } from '../shared/site-directory.js';
import { textReply } from '../shared/text-reply.js';
import { memberFacing, type MemberSettings } from './member-settings.js';

type Say = (key: string, params?: MessageParams) => string;

/** Discord's bounds on a modal's title and on a label's text and description. */
const TITLE_MAX = 45;
const LABEL_MAX = 45;
const DESCRIPTION_MAX = 100;
/**
 * What the form's field takes: keys are at most 64 characters (member-keys.ts), and a paste may bring
 * spaces or a line break around it; anything longer is not a key, and Discord refuses it before sending.
 */
const KEY_FIELD_MAX = 100;
/** The field's custom id: the modal's only one. */
export const KEY_FIELD = 'key';

/** `melink:open:<site code>` (the button) and `melink:key:<site code>` (the form's submit). */
const linkCodec = buttonCodec<'open' | 'key', { readonly site: string }>({
  namespace: 'melink',
  schema: z.tuple([segment.siteCode]).transform(([site]) => ({ site })),
  write: ({ site }) => [site],
});

/** Where the board shows an account's API key: its account settings page (`/registrations/edit`). */
function keyPageOf(site: Site): string {
  return `${site.baseUrl}/registrations/edit`;
}

/** The refusal a member reads when linking is off (no MEMBER_KEY_SECRET). */
function linkingOff(): UserFacingError {
  return new UserFacingError(
    'me.link-off',
    'Linking a board account is not turned on for this bot: its operator has not set it up.',
  );
}

const REFUSALS: Readonly<Record<LinkRefusal, () => UserFacingError>> = {
  'linking-off': linkingOff,
  'not-a-key': () =>
    new UserFacingError(
      'me.not-a-key',
      "That is not an API key: paste the key exactly as your account's settings page on the board shows it.",
    ),
  'too-many-sites': () =>
    new UserFacingError(
      'me.too-many-sites',
      'You have linked accounts on too many sites: unlink one with `/me unlink` first.',
    ),
};

/** The site a `site:` choice names; `fallback` when none was given. */
function siteOfChoice(choice: string | null, context: CommandContext, fallback: Site): Site {
  if (choice === null) return fallback;
  if (choice === DEFAULT_SITE_CHOICE) return context.sites.defaultSite;
  const site = context.sites.byId(choice);
  if (site === undefined)
    throw new UserFacingError('me.unknown-site', 'Unknown site: pick one from the list.');
  return site;
}

/** `/me link [site:]`: where the key is, and the button that opens the form. */
export function link(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  say: Say,
): Reply {
  if (!context.memberKeys.linking) throw linkingOff();
  // Default: the site this server uses (the bot's own outside servers and where none was chosen).
  const site = siteOfChoice(interaction.options.getString('site'), context, context.view.site);
  const name = escapeMarkdown(site.name);
  return messageReply({
    content: [
      say('me.link.intro', { site: name }),
      say('me.link.where', { site: name, url: `<${keyPageOf(site)}>` }),
      say('me.link.use', { site: name }),
    ].join('\n'),
    embeds: [],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Primary,
            custom_id: linkCodec.encode('open', { site: siteCode(site) }),
            label: say('me.link.button').slice(0, 80),
          },
        ],
      },
    ],
  });
}

/** The form: one short text field for the key, in the member's language; `site` named in the title. */
function linkForm(site: Site, say: Say): APIModalInteractionResponseCallbackData {
  return {
    custom_id: linkCodec.encode('key', { site: siteCode(site) }),
    title: say('me.link.form.title', { site: site.name }).slice(0, TITLE_MAX),
    components: [
      {
        type: ComponentType.Label,
        label: say('me.link.form.label').slice(0, LABEL_MAX),
        description: say('me.link.form.description', { host: site.host }).slice(0, DESCRIPTION_MAX),
        component: {
          type: ComponentType.TextInput,
          custom_id: KEY_FIELD,
          style: TextInputStyle.Short,
          min_length: 1,
          max_length: KEY_FIELD_MAX,
          required: true,
        },
      },
    ],
  };
}

/** The button and the form's submit, keyed as the runtime routes them. */
export function linkComponents(options: {
  readonly translator: () => Translator;
  /** The configured site (BOORU_URL), which a code names when it is not a known site. */
  readonly defaultSite: Site | undefined;
}): {
  readonly buttons: Readonly<Record<string, ButtonHandler>>;
  readonly modals: Readonly<Record<string, ModalHandler>>;
} {
  const formGone = () => new UserFacingError('form.gone', 'This form no longer works.');
  const open: ButtonHandler = {
    // The form opens before any I/O, so it is worded from the interaction's own locale.
    defer(interaction, args) {
      const site =
        options.defaultSite === undefined
          ? undefined
          : linkCodec.decodeWithSite(args, KNOWN_SITES, options.defaultSite)?.site;
      if (site === undefined) return 'ephemeral';
      const translator = options.translator();
      return { modal: linkForm(site, (key, params) => translator.t(interaction.locale, key, params)) };
    },
    // Reached only when the button names no site the bot knows (an old button, another configuration).
    run: () => Promise.reject(formGone()),
  };
  const submit: ModalHandler = {
    defer: () => 'ephemeral',
    async run(interaction, args, context) {
      const site = linkCodec.decodeWithSite(args, context.sites.all, context.sites.defaultSite)?.site;
      if (site === undefined) throw formGone();
      const translator = options.translator();
      const say: Say = (key, params) => translator.t(context.locale, key, params);
      try {
        return await linkKey(
          interaction.user.id,
          site,
          interaction.fields.getTextInputValue(KEY_FIELD),
          context,
          say,
        );
      } catch (error) {
        throw memberFacing(error);
      }
    },
  };
  return {
    buttons: { [linkCodec.key('open')]: open },
    modals: { [linkCodec.key('key')]: submit },
  };
}

/**
 * Checks `text` as a key of `site` with the board, then links it for `userId`. Nothing is stored unless
 * the board took the key; the text is never echoed, logged or put in an error.
 */
async function linkKey(
  userId: string,
  site: Site,
  text: string,
  context: CommandContext,
  say: Say,
): Promise<Reply> {
  const keys = context.memberKeys;
  if (!keys.linking) throw linkingOff();
  const key = memberKeyOf(text);
  if (key === undefined) throw REFUSALS['not-a-key']();
  try {
    // The key's one trip: to the site it was pasted for, on this member's behalf alone.
    await context.registry.memberClient(site, { id: userId, key: key.reveal() }).userFilters();
  } catch (error) {
    if (error instanceof MemberKeyRefusedError) {
      const name = escapeMarkdown(site.name);
      throw new UserFacingError('me.key-refused', `${name} does not accept that key: nothing was saved.`, {
        params: { site: name },
      });
    }
    throw error;
  }
  const linked = await keys.link(userId, site.id, key.reveal());
  if (!linked.ok) throw REFUSALS[linked.reason]();
  const name = escapeMarkdown(site.name);
  return textReply(
    [say('me.link.done', { site: name, hint: linked.site.hint }), say('me.link.use', { site: name })].join(
      '\n',
    ),
  );
}

/**
 * The member's chosen filter on `site` when it is a private one of their own account (`/me filter` accepts
 * those only with the key): asked of the board with the key, before it goes. Undefined when none was
 * chosen, it is public or a system one, or the board cannot say (the choice then stays, as before).
 */
async function privateChoice(
  userId: string,
  site: Site,
  context: CommandContext,
  members: MemberSettings,
): Promise<number | undefined> {
  const chosen = (await members.get(userId)).filters[site.id];
  if (chosen === undefined) return undefined;
  const key = await context.memberKeys.keyFor(userId, site.id);
  if (key === undefined) return undefined;
  try {
    const own = await context.registry
      .memberClient(site, { id: userId, key: key.reveal() })
      .userFilters({ perPage: 50 });
    const filter = own.items.find((item) => item.id === chosen);
    return filter !== undefined && !filter.public && !filter.system ? chosen : undefined;
  } catch (error) {
    context.logger.info({ err: error, siteId: site.id }, "a member's filters could not be read at unlink");
    return undefined;
  }
}

/**
 * `/me unlink site:`: deletes that site's key at once, and the answers fetched with it. A private filter of
 * theirs chosen with `/me filter` goes too: without the key the board no longer applies it, and `/me
 * filter` would go on naming a filter nobody uses.
 */
export async function unlink(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  say: Say,
  members: MemberSettings,
): Promise<Reply> {
  const site = siteOfChoice(interaction.options.getString('site', true), context, context.sites.defaultSite);
  const userId = interaction.user.id;
  const cleared = await privateChoice(userId, site, context, members);
  const had = await context.memberKeys.unlink(userId, site.id);
  context.registry.forgetMember(userId);
  const name = escapeMarkdown(site.name);
  if (cleared !== undefined) await members.setFilter(userId, site.id, undefined);
  return textReply(
    [
      say(had ? 'me.unlink.done' : 'me.unlink.none', { site: name }),
      ...(cleared === undefined
        ? []
        : [say('me.unlink.filter-cleared', { site: name, filter: String(cleared) })]),
    ].join('\n'),
  );
}

/** The lines of `/me show` about linked accounts: each site with its key's last four characters. */
export async function linkedLines(
  userId: string,
  keys: MemberKeys,
  sites: CommandContext['sites'],
  say: Say,
): Promise<string[]> {
  const linked = await keys.sites(userId);
  if (linked.length === 0) return [say(keys.linking ? 'me.keys.none' : 'me.keys.none-off')];
  return [
    say('me.keys.title'),
    ...linked.map(({ siteId, hint }) =>
      say('me.keys.line', { site: escapeMarkdown(sites.byId(siteId)?.name ?? siteId), hint }),
    ),
  ];
}

/** Deletes every key of the member (part of `/me forget`); the sentence that says so. */
export async function forgetKeys(userId: string, context: CommandContext, say: Say): Promise<string> {
  const count = (await context.memberKeys.sites(userId)).length;
  await context.memberKeys.forget(userId);
  context.registry.forgetMember(userId);
  return say('me.keys.forgotten', { count });
}
