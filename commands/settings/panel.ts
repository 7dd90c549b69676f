/**
 * `/settings panel`: every setting of the server and of its channels in one private Components V2 message
 * (issue 20 §4), for admins who would rather not remember subcommand names. A channel select switches the
 * panel between the server and one channel; a site select, toggles, a preset select and buttons that open
 * forms (modals with labelled text inputs) change what the panel shows. Each change goes through the same
 * code as its subcommand (tags.ts, channel.ts, the server's setters), is written atomically, and the panel
 * is redrawn from the record as stored, with one line saying what happened.
 *
 * Custom ids carry the scope (`s` for the server, else the channel id): whoever uses a control must still
 * be allowed to change the settings (scope.ts `settingsGuildOf`), checked at every use.
 */
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIComponentInMessageActionRow,
  type APIMessageTopLevelComponent,
} from 'discord.js';
import { z } from 'zod';
import { messageReply, type MessageBody, type Reply } from '../../src/discord/contract.js';
import { buttonCodec, segment } from '../../src/discord/custom-id.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { truncate, truncateMarkdown } from '../../src/render/index.js';
import type { ButtonHandler, CommandContext, ModalHandler, SelectHandler } from '../shared/context.js';
import type { GuildSettingsRecord } from '../shared/guild-settings.js';
import { sayIn, type Say } from '../shared/say.js';
import { DEFAULT_SITE_CHOICE, siteChoices } from '../shared/site-directory.js';
import type { TagListAction } from '../shared/tag-changes.js';
import { TAG_PRESETS } from '../shared/tag-presets.js';
import { changeChannel, SERVER_SITE_CHOICE } from './channel.js';
import { form, type FormKind } from './panel-form.js';
import { askReset } from './reset.js';
import { setServerFilter } from './server-filter.js';
import {
  channelOf,
  SERVER_SCOPE,
  SETTINGS_CHANNEL_TYPES,
  settingsGuildOf,
  withoutChannel,
  type Scope,
} from './scope.js';
import { describeScope } from './show.js';
import { addPreset, changeScopeTags } from './tags.js';

type PanelAction =
  'open' | 'channel' | 'site' | 'refs' | 'unfurl' | 'preset' | 'form' | 'submit' | 'chreset' | 'reset';

const SCOPE_SEGMENT = z.union([z.literal('s'), segment.snowflake]);

const scopeCodec = buttonCodec<PanelAction, { readonly scope: string; readonly extra: string }>({
  namespace: 'panel',
  schema: z
    .tuple([SCOPE_SEGMENT, z.string().regex(/^[a-z01]{0,10}$/)])
    .transform(([scope, extra]) => ({ scope, extra })),
  write: ({ scope, extra }) => [scope, extra],
});

const scopeCode = (scope: Scope): string => (scope.kind === 'server' ? 's' : scope.channelId);
const scopeFrom = (code: string): Scope =>
  code === 's' ? SERVER_SCOPE : { kind: 'channel', channelId: code };
const id = (action: PanelAction, scope: Scope, extra = ''): string =>
  scopeCodec.encode(action, { scope: scopeCode(scope), extra });

function button(
  label: string,
  customId: string,
  style: ButtonStyle.Secondary | ButtonStyle.Danger = ButtonStyle.Secondary,
): APIButtonComponent {
  return { type: ComponentType.Button, style, label, custom_id: customId };
}

function row(
  components: APIComponentInMessageActionRow[],
): APIActionRowComponent<APIComponentInMessageActionRow> {
  return { type: ComponentType.ActionRow, components };
}

/**
 * The panel for `scope`, drawn from `record` as stored; `status` says what the last change did. In the
 * member's language (`say`: the tests pass the pseudo-locale's).
 */
export function panelBody(
  record: GuildSettingsRecord,
  scope: Scope,
  context: Pick<CommandContext, 'sites' | 'locale' | 'guildLocale'>,
  status?: string,
  say: Say = sayIn(context.locale),
): MessageBody {
  const { sites } = context;
  const own = channelOf(record, scope);
  const heading =
    scope.kind === 'server'
      ? say('settings.panel.heading.server')
      : say('settings.panel.heading.channel', { channel: `<#${scope.channelId}>` });
  const text = [heading, ...describeScope(record, scope, sites, say, context.guildLocale)].join('\n');
  const statusText = status === undefined ? [] : [truncateMarkdown(status, 1500)];
  const siteOptions = [
    ...(scope.kind === 'channel'
      ? [{ label: say('command.settings.channel.site.choice.server'), value: SERVER_SITE_CHOICE }]
      : []),
    ...siteChoices(sites.defaultSite).map((choice) => ({
      label:
        choice.value === DEFAULT_SITE_CHOICE
          ? truncate(say('settings.panel.site.default', { site: sites.defaultSite.name }), 100)
          : choice.name,
      value: choice.value,
    })),
  ].slice(0, 25);
  // The bot's default site is offered as DEFAULT_SITE_CHOICE when it is not a known site, so a stored
  // id of it (a channel's own) is shown as that choice.
  const siteId = scope.kind === 'channel' ? own.siteId : (record.siteId ?? sites.defaultSite.id);
  const pickedSite =
    siteId === undefined
      ? SERVER_SITE_CHOICE
      : siteOptions.some((option) => option.value === siteId)
        ? siteId
        : DEFAULT_SITE_CHOICE;
  const references =
    scope.kind === 'server'
      ? record.imageReferences !== false
      : (own.imageReferences ?? record.imageReferences !== false);
  const toggles: APIButtonComponent[] = [
    button(
      say('settings.panel.button.references', { state: references ? 'on' : 'off' }),
      id('refs', scope, references ? '0' : '1'),
    ),
    ...(scope.kind === 'channel'
      ? [
          button(
            say('settings.panel.button.unfurls', { state: own.unfurl === false ? 'off' : 'on' }),
            id('unfurl', scope, own.unfurl === false ? '1' : '0'),
          ),
        ]
      : []),
    button(say('settings.panel.button.filter'), id('form', scope, 'filter')),
  ];
  const tagButtons: APIButtonComponent[] = [
    button(say('settings.panel.button.hide'), id('form', scope, 'hide')),
    button(say('settings.panel.button.spoiler'), id('form', scope, 'spoiler')),
    button(say('settings.panel.button.unhide'), id('form', scope, 'unhide')),
  ];
  const last: APIButtonComponent[] =
    scope.kind === 'channel'
      ? [
          button(say('settings.panel.button.back'), id('open', SERVER_SCOPE)),
          button(say('settings.panel.button.channel-reset'), id('chreset', scope), ButtonStyle.Danger),
        ]
      : [button(say('settings.panel.button.reset'), id('reset', scope), ButtonStyle.Danger)];
  const components: APIMessageTopLevelComponent[] = [
    {
      type: ComponentType.Container,
      components: [
        ...statusText.map((content) => ({ type: ComponentType.TextDisplay as const, content })),
        { type: ComponentType.TextDisplay, content: truncateMarkdown(text, 2400) },
        row([
          {
            type: ComponentType.ChannelSelect,
            custom_id: id('channel', scope),
            placeholder: say('settings.panel.select.channel'),
            channel_types: [...SETTINGS_CHANNEL_TYPES],
            min_values: 1,
            max_values: 1,
          },
        ]),
        row([
          {
            type: ComponentType.StringSelect,
            custom_id: id('site', scope),
            placeholder: say('settings.panel.select.site'),
            options: siteOptions.map((option) => ({ ...option, default: option.value === pickedSite })),
          },
        ]),
        row(toggles),
        row(tagButtons),
        row([
          {
            type: ComponentType.StringSelect,
            custom_id: id('preset', scope),
            placeholder: say('settings.panel.select.preset'),
            options: TAG_PRESETS.map((preset) => ({
              label: say(`command.settings.tags.preset.preset.choice.${preset.id}`),
              value: preset.id,
              description: say(`settings.preset.description.${preset.id}`).slice(0, 100),
            })),
          },
        ]),
        row(last),
      ],
    },
  ];
  return { componentsV2: true, components };
}

/** `/settings panel`: the server's panel. */
export async function openPanel(context: CommandContext, guildId: string): Promise<Reply> {
  return messageReply(panelBody(await context.settings.get(guildId), SERVER_SCOPE, context));
}

/** The panel again after a change, with what the change said on top. */
async function redraw(
  context: CommandContext,
  guildId: string,
  scope: Scope,
  status?: string,
): Promise<Reply> {
  return messageReply(panelBody(await context.settings.get(guildId), scope, context, status));
}

/** The text a subcommand's answer carries (its reply is redrawn into the panel's status line). */
function statusOf(reply: Reply): string {
  if (reply.kind !== 'message') return reply.text;
  return reply.body.componentsV2 === true ? '' : (reply.body.content ?? '');
}

const FORM_KINDS: ReadonlySet<string> = new Set<FormKind>(['hide', 'spoiler', 'unhide', 'filter']);
const isFormKind = (text: string): text is FormKind => FORM_KINDS.has(text);

function decoded(args: readonly string[]): { readonly scope: Scope; readonly extra: string } {
  const fields = scopeCodec.decode(args);
  if (fields === undefined) throw new UserFacingError('button.gone', 'This button no longer works.');
  return { scope: scopeFrom(fields.scope), extra: fields.extra };
}

/** Sets the server's or a channel's references, or a channel's unfurls. */
async function toggle(
  context: CommandContext,
  guildId: string,
  scope: Scope,
  what: 'refs' | 'unfurl',
  on: boolean,
): Promise<Reply> {
  if (scope.kind === 'server') {
    await context.settings.setImageReferences(guildId, on);
  } else {
    await changeChannel(context, guildId, scope, what === 'refs' ? { references: on } : { unfurl: on });
  }
  const status = sayIn(context.locale)(`settings.panel.status.${what}`, {
    state: on ? 'on' : 'off',
    where: scope.kind,
    channel: scope.kind === 'server' ? '' : `<#${scope.channelId}>`,
  });
  return redraw(context, guildId, scope, status);
}

export const panelButtons: Readonly<Record<string, ButtonHandler>> = {
  [scopeCodec.key('open')]: {
    defer: () => 'update',
    run: (interaction, args, context) => redraw(context, settingsGuildOf(interaction), decoded(args).scope),
  },
  [scopeCodec.key('refs')]: {
    defer: () => 'update',
    run(interaction, args, context) {
      const { scope, extra } = decoded(args);
      return toggle(context, settingsGuildOf(interaction), scope, 'refs', extra === '1');
    },
  },
  [scopeCodec.key('unfurl')]: {
    defer: () => 'update',
    run(interaction, args, context) {
      const { scope, extra } = decoded(args);
      return toggle(context, settingsGuildOf(interaction), scope, 'unfurl', extra === '1');
    },
  },
  [scopeCodec.key('form')]: {
    // A form opens at once, without I/O: the runtime shows it instead of deferring.
    defer(interaction, args) {
      const { scope, extra } = decoded(args);
      if (!isFormKind(extra)) throw new UserFacingError('button.gone', 'This button no longer works.');
      return { modal: form(scope, extra, id('submit', scope, extra), sayIn(interaction.locale)) };
    },
    run: () => Promise.reject(new Error('a form button is answered with its form')),
  },
  [scopeCodec.key('chreset')]: {
    defer: () => 'update',
    async run(interaction, args, context) {
      const guildId = settingsGuildOf(interaction);
      const { scope } = decoded(args);
      if (scope.kind !== 'channel') throw new UserFacingError('button.gone', 'This button no longer works.');
      await context.settings.update(guildId, (current) => withoutChannel(current, scope.channelId));
      const status = sayIn(context.locale)('settings.panel.status.channel-reset', {
        channel: `<#${scope.channelId}>`,
      });
      return redraw(context, guildId, scope, status);
    },
  },
  [scopeCodec.key('reset')]: {
    // The question comes as a message of its own: the panel stays as it is until the reset is confirmed.
    defer: () => 'ephemeral',
    run: (interaction, _args, context) => askReset(context, settingsGuildOf(interaction)),
  },
};

export const panelSelects: Readonly<Record<string, SelectHandler>> = {
  [scopeCodec.key('channel')]: {
    defer: () => 'update',
    async run(interaction, _args, context) {
      const guildId = settingsGuildOf(interaction);
      const channelId = interaction.values[0];
      if (channelId === undefined || !/^\d{1,20}$/.test(channelId)) {
        throw new UserFacingError('settings.channel-missing', 'Pick the channel to change with `channel:`.');
      }
      return redraw(context, guildId, { kind: 'channel', channelId });
    },
  },
  [scopeCodec.key('site')]: {
    defer: () => 'update',
    async run(interaction, args, context) {
      const guildId = settingsGuildOf(interaction);
      const { scope } = decoded(args);
      const value = interaction.values[0] ?? '';
      if (scope.kind === 'channel') {
        const siteId =
          value === SERVER_SITE_CHOICE
            ? null
            : value === DEFAULT_SITE_CHOICE
              ? context.sites.defaultSite.id
              : value;
        await changeChannel(context, guildId, scope, { siteId });
      } else {
        const site = value === DEFAULT_SITE_CHOICE ? context.sites.defaultSite : context.sites.byId(value);
        if (site === undefined)
          throw new UserFacingError('settings.unknown-site', 'That site is not supported.');
        await context.settings.setSite(guildId, value === DEFAULT_SITE_CHOICE ? undefined : site.id);
      }
      const record = await context.settings.get(guildId);
      const say = sayIn(context.locale);
      const shown =
        describeScope(record, scope, context.sites, say, context.guildLocale)[
          scope.kind === 'server' ? 0 : 1
        ] ?? '';
      const status = say('settings.panel.status.changed', { setting: shown.replace(/^• /, '') });
      return messageReply(panelBody(record, scope, context, status));
    },
  },
  [scopeCodec.key('preset')]: {
    defer: () => 'update',
    async run(interaction, args, context) {
      const guildId = settingsGuildOf(interaction);
      const { scope } = decoded(args);
      const reply = await addPreset(context, guildId, scope, interaction.values[0] ?? '');
      return redraw(context, guildId, scope, statusOf(reply));
    },
  },
};

export const panelModals: Readonly<Record<string, ModalHandler>> = {
  [scopeCodec.key('submit')]: {
    defer: () => 'update',
    async run(interaction, args, context) {
      const guildId = settingsGuildOf(interaction);
      const { scope, extra } = decoded(args);
      if (!isFormKind(extra)) throw new UserFacingError('form.gone', 'This form no longer works.');
      const value = interaction.fields.getTextInputValue('value').trim();
      if (extra === 'filter') {
        const filterId = /^\d{1,12}$/.test(value) ? Number(value) : 0;
        if (filterId < 1) {
          throw new UserFacingError(
            'settings.bad-filter-id',
            'A filter id is a whole number, such as 56027.',
          );
        }
        if (scope.kind === 'channel') {
          const reply = await changeChannel(context, guildId, scope, { filterId });
          return redraw(context, guildId, scope, statusOf(reply).split('\n').slice(-12).join('\n'));
        }
        return redraw(context, guildId, scope, await setServerFilter(context, guildId, filterId));
      }
      const action: TagListAction = extra;
      const reply = await changeScopeTags(context, guildId, scope, action, value);
      return redraw(context, guildId, scope, statusOf(reply));
    },
  },
};
