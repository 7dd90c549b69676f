/**
 * Application commands, global and per guild: bulk overwrite (PUT), create-or-update (POST) and list.
 * Beyond the OpenAPI schema they get the checks Discord makes on names, option order, duplicates and
 * autocomplete with choices.
 */
import { DiscordError, invalidForm, isRecord, type Handler, type RestContext } from '../rest-context.js';
import type { StoredCommand } from '../state.js';
import { schemaIssues, type Issue } from '../validate.js';
import { isChatName, localizationIssues } from '../command-localizations.js';

function commandIssues(command: unknown, index: number | undefined): Issue[] {
  const prefix = index === undefined ? [] : [index];
  const issues: Issue[] = [];
  if (!isRecord(command)) return issues;
  const type = command['type'] ?? 1;
  const name = command['name'];
  if (type === 1 && !isChatName(name)) {
    issues.push({
      path: [...prefix, 'name'],
      code: 'APPLICATION_COMMAND_INVALID_NAME',
      message: 'Command name is invalid',
    });
  }
  const checkOptions = (options: unknown, path: (string | number)[]): void => {
    if (!Array.isArray(options)) return;
    if (options.length > 25) {
      issues.push({ path, code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' });
    }
    let sawOptional = false;
    const names = new Set<string>();
    options.forEach((option, i) => {
      if (!isRecord(option)) return;
      const optionName = option['name'];
      if (!isChatName(optionName)) {
        issues.push({
          path: [...path, i, 'name'],
          code: 'APPLICATION_COMMAND_INVALID_NAME',
          message: 'Command name is invalid',
        });
      } else if (names.has(optionName)) {
        issues.push({
          path: [...path, i, 'name'],
          code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
          message: 'Option names must be unique',
        });
      } else {
        names.add(optionName);
      }
      const required = option['required'] === true;
      if (required && sawOptional) {
        issues.push({
          path: [...path, i, 'required'],
          code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          message: 'Required options must be placed before non-required options',
        });
      }
      if (!required) sawOptional = true;
      const choices = option['choices'];
      if (Array.isArray(choices) && choices.length > 25) {
        issues.push({
          path: [...path, i, 'choices'],
          code: 'BASE_TYPE_MAX_LENGTH',
          message: 'Must be 25 or fewer in length.',
        });
      }
      if (Array.isArray(choices) && choices.length > 0 && option['autocomplete'] === true) {
        issues.push({
          path: [...path, i, 'autocomplete'],
          code: 'APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES',
          message: 'Autocomplete cannot be used with choices',
        });
      }
      checkOptions(option['options'], [...path, i, 'options']);
    });
  };
  checkOptions(command['options'], [...prefix, 'options']);
  issues.push(...localizationIssues(command, prefix));
  return issues;
}

export function registerCommandRoutes(rest: RestContext): void {
  const { state, add } = rest;

  function commandList(appId: string, guildId: string | undefined): StoredCommand[] {
    if (appId !== state.applicationId) {
      throw new DiscordError(
        403,
        20012,
        'You are not authorized to perform this action on this application',
        'unauthorized',
      );
    }
    if (guildId === undefined) return state.globalCommands;
    // A server the app is not installed in (no applications.commands there): Discord's Missing Access.
    if (rest.foreignWorldOfGuild(guildId) !== undefined) {
      throw new DiscordError(403, 50001, 'Missing Access', 'missing-permissions');
    }
    if (rest.worldOfGuild(guildId) === undefined) {
      throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
    }
    const list = state.guildCommands.get(guildId) ?? [];
    state.guildCommands.set(guildId, list);
    return list;
  }

  function storeCommand(
    list: StoredCommand[],
    body: Record<string, unknown>,
    guildId: string | undefined,
  ): StoredCommand {
    const type = typeof body['type'] === 'number' ? body['type'] : 1;
    const name = String(body['name']);
    const existing = list.findIndex((c) => c.name === name && c.type === type);
    const stored: StoredCommand = {
      ...body,
      id: existing >= 0 ? (list[existing]?.id ?? state.snowflake()) : state.snowflake(),
      application_id: state.applicationId,
      version: state.snowflake(),
      type,
      name,
      description: typeof body['description'] === 'string' ? body['description'] : '',
      // Discord answers with the documented string form whichever form was sent.
      default_member_permissions:
        body['default_member_permissions'] == null ? null : String(body['default_member_permissions']),
      nsfw: body['nsfw'] ?? false,
      ...(guildId === undefined ? {} : { guild_id: guildId }),
    };
    if (existing >= 0) list[existing] = stored;
    else list.push(stored);
    return stored;
  }

  const putCommands: Handler = (req, p) => {
    const list = commandList(p['app'] ?? '', p['guild']);
    const body = req.body;
    if (!Array.isArray(body))
      throw invalidForm([{ path: [], code: 'BASE_TYPE_ARRAY', message: 'Must be an array.' }]);
    const issues = body.flatMap((command, i) => [
      ...schemaIssues('ApplicationCommandUpdateRequest', command).map((issue) => ({
        ...issue,
        path: [i, ...issue.path],
      })),
      ...commandIssues(command, i),
    ]);
    const names = new Set<string>();
    body.forEach((command, i) => {
      if (!isRecord(command)) return;
      const key = `${String(command['type'] ?? 1)}:${String(command['name'])}`;
      if (names.has(key)) {
        issues.push({
          path: [i, 'name'],
          code: 'APPLICATION_COMMANDS_DUPLICATE_NAME',
          message: 'Application command names must be unique',
        });
      }
      names.add(key);
    });
    if (issues.length > 0) throw invalidForm(issues);
    list.splice(0, list.length);
    for (const command of body) if (isRecord(command)) storeCommand(list, command, p['guild']);
    state.notify();
    return { status: 200, body: list };
  };
  const postCommand: Handler = (req, p) => {
    const list = commandList(p['app'] ?? '', p['guild']);
    const issues = [
      ...schemaIssues('ApplicationCommandCreateRequest', req.body),
      ...commandIssues(req.body, undefined),
    ];
    if (issues.length > 0 || !isRecord(req.body)) throw invalidForm(issues);
    const existed = list.some((c) => isRecord(req.body) && c.name === req.body['name']);
    const stored = storeCommand(list, req.body, p['guild']);
    state.notify();
    return { status: existed ? 200 : 201, body: stored };
  };
  add('GET', '/applications/:app/commands', (_req, p) => ({
    status: 200,
    body: commandList(p['app'] ?? '', undefined),
  }));
  add('PUT', '/applications/:app/commands', putCommands);
  add('POST', '/applications/:app/commands', postCommand);
  add('GET', '/applications/:app/guilds/:guild/commands', (_req, p) => ({
    status: 200,
    body: commandList(p['app'] ?? '', p['guild']),
  }));
  add('PUT', '/applications/:app/guilds/:guild/commands', putCommands);
  add('POST', '/applications/:app/guilds/:guild/commands', postCommand);
}
