/**
 * `/settings language [language:] [channel:]` (issue 21): the language of what nobody asked for (unfurl
 * replies, feed posts) in this server, or in one channel (whose language wins over the server's; a thread
 * follows its parent). Unset, they follow Discord's preferred locale of the server as it is when the text
 * is made. With no `language:` the answer says which language applies and where it comes from. Answers to
 * interactions are never in this language: they are in the language of the member who asked.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import type { Incoming, Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { shippedTranslator } from '../../src/i18n/index.js';
import type { CommandContext } from '../shared/context.js';
import type { GuildSettingsRecord } from '../shared/guild-settings.js';
import { sayIn, type Say } from '../shared/say.js';
import { textReply } from '../shared/text-reply.js';
import { languageIn } from '../shared/view.js';
import { channelOf, withChannel, type Scope } from './scope.js';
import { scopeOption } from './tags.js';

/** The `language:` choice that unsets the scope's language (Discord's server language then applies). */
const DISCORD_LANGUAGE_CHOICE = 'discord';

/**
 * A shipped locale by its own name, as its speakers write it (`Intl.DisplayNames`: "Deutsch", "Polski",
 * "Русский"), capitalised as a list entry: a translator who adds `locales/<code>.json` adds nothing here.
 * The language alone ("Español", not "Español de España") while it is the only variant shipped of it;
 * its code when the runtime has no name for it.
 */
export function languageName(locale: string): string {
  const language = locale.split('-')[0] ?? locale;
  const variants = shippedTranslator().locales.filter((shipped) => shipped.split('-')[0] === language);
  const named = variants.length > 1 ? locale : language;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames([locale], { type: 'language' }).of(named);
  } catch {
    name = undefined;
  }
  if (name === undefined || name === '' || name === named) return locale;
  return `${name.charAt(0).toLocaleUpperCase(locale)}${name.slice(1)}`;
}

/**
 * The choices of `language:`: Discord's server language (unset), then every shipped language by its own
 * name (a proper name: no catalogue key, so the same in every member's list).
 */
export function languageChoices(): { name: string; value: string }[] {
  return [
    { name: "Discord's server language", value: DISCORD_LANGUAGE_CHOICE },
    ...shippedTranslator().locales.map((locale) => ({ name: languageName(locale), value: locale })),
  ];
}

/** Where the language of a scope comes from (a select in the catalogue's messages). */
type From = 'channel' | 'server' | 'discord';

/**
 * The language that applies in `scope` now, and where it comes from; `guildLocale` is Discord's (null:
 * none, so English).
 */
function languageOf(
  record: GuildSettingsRecord,
  scope: Scope,
  guildLocale: string | null,
): { readonly name: string; readonly from: From } {
  const own = channelOf(record, scope).language;
  const chosen = languageIn(record, scope.kind === 'channel' ? scope.channelId : null);
  const from: From = own !== undefined ? 'channel' : chosen !== undefined ? 'server' : 'discord';
  return { name: languageName(shippedTranslator().resolve(chosen ?? guildLocale)), from };
}

const scopeParams = (scope: Scope) =>
  scope.kind === 'channel'
    ? { scope: 'channel', channel: `<#${scope.channelId}>` }
    : { scope: 'server', channel: '' };

/**
 * The line of `/settings show` (and of this command) that says the language of unfurls and feed posts in
 * `scope`, and where it comes from. `guildLocale` undefined: Discord's is not known here (not named then).
 */
export function languageLine(
  record: GuildSettingsRecord,
  scope: Scope,
  say: Say,
  guildLocale?: string | null,
): string {
  const known = languageOf(record, scope, guildLocale ?? null);
  if (known.from === 'discord' && guildLocale === undefined) {
    return say('language.line.discord', { scope: scope.kind });
  }
  return say('language.line', { scope: scope.kind, name: known.name, from: known.from });
}

/** `record` with the scope's language set (a shipped locale) or unset (undefined). */
function withLanguage(
  record: GuildSettingsRecord,
  scope: Scope,
  language: string | undefined,
): GuildSettingsRecord {
  if (scope.kind === 'channel') {
    return withChannel(record, scope.channelId, (current) => {
      const { language: _previous, ...rest } = current;
      return language === undefined ? rest : { ...rest, language };
    });
  }
  const { language: _previous, ...rest } = record;
  return language === undefined ? rest : { ...rest, language };
}

/** `/settings language`, once the runtime checked the member may change settings. */
export async function runLanguageSubcommand(
  interaction: Incoming<ChatInputCommandInteraction>,
  context: CommandContext,
  guildId: string,
): Promise<Reply> {
  const scope = scopeOption(interaction);
  const choice = interaction.options.getString('language');
  const say = sayIn(context.locale);
  const guildLocale = interaction.guildLocale ?? null;
  if (choice === null) {
    const record = await context.settings.get(guildId);
    const line = languageLine(record, scope, say, guildLocale);
    return textReply(
      scope.kind === 'channel'
        ? `${say('settings.show.channel.heading', { channel: `<#${scope.channelId}>` })}\n${line}`
        : line,
    );
  }
  const language = choice === DISCORD_LANGUAGE_CHOICE ? undefined : choice;
  if (language !== undefined && !shippedTranslator().locales.includes(language)) {
    throw new UserFacingError('settings.unknown-setting', 'Unknown setting.');
  }
  const record = await context.settings.update(guildId, (current) => withLanguage(current, scope, language));
  const { name } = languageOf(record, scope, guildLocale);
  // Channels that set their own keep it: said when the server's choice does not reach all of them.
  const others =
    scope.kind === 'server' && Object.values(record.channels ?? {}).some((own) => own.language !== undefined)
      ? 'yes'
      : 'no';
  const params = { ...scopeParams(scope), name, others };
  return textReply(say(language === undefined ? 'language.cleared' : 'language.set', params));
}
