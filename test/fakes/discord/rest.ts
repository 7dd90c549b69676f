/**
 * The REST half of the fake Discord (`/api/v10/...`). Every request is recorded; every body is checked
 * against Discord's OpenAPI schema and documented limits; what real Discord would refuse is refused with
 * the same status and JSON error code, and recorded as a violation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PermissionFlagsBits } from 'discord.js';
import {
  DM_APP_PERMISSIONS,
  channelPayload,
  dmChannelPayload,
  echoEmbeds,
  guildPayload,
  isThread,
  memberPayload,
  memberPermissions,
  messagePayload,
  userOf,
  userPayload,
} from './payloads.js';
import type { FakeState, InjectRule, InteractionRecord, StoredCommand } from './state.js';
import type { RecordedFile, RecordedMessage, RecordedRequest, ResponseKind, ViolationKind } from './types.js';
import {
  autocompleteIssues,
  errorTree,
  isEmptyMessage,
  messageLimitIssues,
  schemaIssues,
  type Issue,
  type SchemaName,
} from './validate.js';

const API_PREFIX = '/api/v10';
const RATE_LIMIT = 50;
const RATE_WINDOW_MS = 1000;

const SUPPRESS_EMBEDS = 1 << 2;
const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;
const SUPPRESS_NOTIFICATIONS = 1 << 12;
const IS_COMPONENTS_V2 = 1 << 15;

interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly segments: string[];
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly files: { field: string; filename: string; contentType: string; data: Buffer }[];
  readonly authorized: boolean;
  readonly authHeader: string | undefined;
}

type Params = Record<string, string>;
type Handler = (req: Request, params: Params) => Reply;

interface Route {
  readonly method: string;
  readonly template: string;
  readonly parts: string[];
  /** Interaction callbacks and webhook-token routes are called without Authorization. */
  readonly auth: boolean;
  readonly handler: Handler;
}

class DiscordError {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly message: string,
    readonly kind: ViolationKind | null,
    readonly errors?: Record<string, unknown>,
  ) {}
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalidForm(issues: readonly Issue[], prefix: readonly (string | number)[] = []): DiscordError {
  return new DiscordError(400, 50035, 'Invalid Form Body', 'schema', errorTree(issues, prefix));
}

/** allowed_mentions that can ping nobody: `{ parse: [] }` with no users/roles and no replied_user. */
export function isSilentMentions(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const parse = value['parse'];
  const users = value['users'];
  const roles = value['roles'];
  return (
    Array.isArray(parse) &&
    parse.length === 0 &&
    (users == null || (Array.isArray(users) && users.length === 0)) &&
    (roles == null || (Array.isArray(roles) && roles.length === 0)) &&
    value['replied_user'] !== true
  );
}

const MENTION_PATTERN = /<@[!&]?\d+>|@everyone|@here/;

export interface FakeRest {
  handle(request: IncomingMessage, response: ServerResponse): void;
}

export function createFakeRest(state: FakeState, gatewayUrl: () => string): FakeRest {
  const routes: Route[] = [];
  const buckets = new Map<string, { count: number; resetAt: number }>();
  const world = state.world;

  const add = (method: string, template: string, handler: Handler, auth = true): void => {
    routes.push({ method, template, parts: template.split('/').filter(Boolean), auth, handler });
  };

  // ---------------------------------------------------------------------------------------------------
  // Helpers over the state.

  const channelExists = (id: string): boolean => id === world.dmChannelId || world.channels.has(id);

  function botPermissionsIn(channelId: string): bigint {
    if (channelId === world.dmChannelId) return DM_APP_PERMISSIONS;
    return memberPermissions(world, world.bot.id);
  }

  function requireChannel(channelId: string): void {
    if (!channelExists(channelId)) throw new DiscordError(404, 10003, 'Unknown Channel', 'unknown-resource');
  }

  function requirePermission(channelId: string, ...bits: bigint[]): void {
    const have = botPermissionsIn(channelId);
    for (const bit of bits) {
      if ((have & bit) !== bit)
        throw new DiscordError(403, 50013, 'Missing Permissions', 'missing-permissions');
    }
  }

  function validate(
    name: SchemaName,
    body: unknown,
    limitsOf: unknown,
    prefix: (string | number)[] = [],
  ): void {
    const issues = schemaIssues(name, body);
    if (issues.length > 0) throw invalidForm(issues);
    const limits = messageLimitIssues(limitsOf);
    if (limits.length > 0) {
      const error = invalidForm(limits, prefix);
      throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
    }
  }

  function recordMentions(req: Request, route: string, body: unknown, messageId: string | undefined): void {
    if (!isRecord(body)) return;
    const allowed = body['allowed_mentions'];
    if (isSilentMentions(allowed)) return;
    const content = body['content'];
    state.mentionRisks.push({
      method: req.method,
      route,
      messageId,
      allowedMentions: allowed,
      contentHasMention: typeof content === 'string' && MENTION_PATTERN.test(content),
      at: state.now(),
    });
  }

  function attachmentsFrom(
    req: Request,
    body: Record<string, unknown>,
    channelId: string,
    existing: Record<string, unknown>[],
  ): Record<string, unknown>[] {
    const listed = Array.isArray(body['attachments']) ? body['attachments'].filter(isRecord) : undefined;
    const kept =
      listed === undefined
        ? existing
        : existing.filter((a) => listed.some((l) => String(l['id']) === String(a['id'])));
    const uploaded = req.files.map((file, index) => {
      const id = state.snowflake();
      const meta = listed?.find((l) => String(l['id']) === String(index));
      const filename = typeof meta?.['filename'] === 'string' ? meta['filename'] : file.filename;
      const cdnPath = `/cdn/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
      state.files.set(cdnPath, { data: file.data, contentType: file.contentType });
      const attachment: Record<string, unknown> = {
        id,
        filename,
        size: file.data.length,
        url: `${state.baseUrl}${cdnPath}`,
        proxy_url: `${state.baseUrl}${cdnPath}`,
        content_type: file.contentType,
      };
      if (typeof meta?.['description'] === 'string') attachment['description'] = meta['description'];
      return attachment;
    });
    return [...kept, ...uploaded];
  }

  function newMessage(
    req: Request,
    body: Record<string, unknown>,
    channelId: string,
    extra: { interactionId?: string; webhook?: boolean; flags?: number },
  ): RecordedMessage {
    const id = state.snowflake();
    const reference = body['message_reference'];
    const embedsAllowed =
      (botPermissionsIn(channelId) & PermissionFlagsBits.EmbedLinks) !== 0n || extra.webhook;
    return {
      id,
      channelId,
      authorId: world.bot.id,
      bot: true,
      content: typeof body['content'] === 'string' ? body['content'] : '',
      // Without Embed Links Discord drops embeds silently (interaction responses are exempt).
      embeds: embedsAllowed ? echoEmbeds(body['embeds']) : [],
      components: Array.isArray(body['components']) ? body['components'].filter(isRecord) : [],
      allowedMentions: body['allowed_mentions'],
      flags:
        (extra.flags ?? 0) |
        (typeof body['flags'] === 'number'
          ? body['flags'] & (SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2)
          : 0),
      messageReference: isRecord(reference)
        ? {
            message_id: String(reference['message_id']),
            channel_id: channelId,
            ...(world.channels.has(channelId) ? { guild_id: world.guildId } : {}),
          }
        : undefined,
      attachments: attachmentsFrom(req, body, channelId, []),
      interactionId: extra.interactionId,
      webhookId: extra.webhook === true ? state.applicationId : undefined,
      createdAt: state.now(),
      editedAt: undefined,
      edits: 0,
      deleted: false,
    };
  }

  /** `asEdit: false` when the change fills in a deferred reply (Discord does not mark that as edited). */
  function applyEdit(
    req: Request,
    message: RecordedMessage,
    body: Record<string, unknown>,
    { asEdit = true }: { asEdit?: boolean } = {},
  ): void {
    if ('content' in body) message.content = typeof body['content'] === 'string' ? body['content'] : '';
    if ('embeds' in body) message.embeds = echoEmbeds(body['embeds']);
    if ('components' in body) {
      message.components = Array.isArray(body['components']) ? body['components'].filter(isRecord) : [];
    }
    if ('allowed_mentions' in body) message.allowedMentions = body['allowed_mentions'];
    if ('attachments' in body || req.files.length > 0) {
      message.attachments = attachmentsFrom(req, body, message.channelId, message.attachments);
    }
    if (typeof body['flags'] === 'number') {
      message.flags = (message.flags & ~SUPPRESS_EMBEDS) | (body['flags'] & SUPPRESS_EMBEDS);
    }
    message.flags &= ~LOADING;
    if (asEdit) {
      message.editedAt = state.now();
      message.edits += 1;
    }
    state.notify();
  }

  function interactionMetadata(interaction: InteractionRecord): Record<string, unknown> {
    return {
      id: interaction.id,
      type: interaction.type,
      user: userPayload(userOf(world, interaction.userId)),
      authorizing_integration_owners:
        interaction.guildId === undefined ? { '1': interaction.userId } : { '0': interaction.guildId },
    };
  }

  function messageJson(message: RecordedMessage): Record<string, unknown> {
    const interaction =
      message.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
    return messagePayload(
      world,
      message,
      interaction === undefined
        ? {}
        : { interactionMetadata: interactionMetadata(interaction), type: interaction.type === 2 ? 20 : 0 },
    );
  }

  function record(
    interaction: InteractionRecord,
    kind: ResponseKind,
    req: Request,
    status: number,
    messageId?: string,
  ) {
    const callbackType = kind === 'callback' && isRecord(req.body) ? req.body['type'] : undefined;
    interaction.responses.push({
      kind,
      callbackType: typeof callbackType === 'number' ? callbackType : undefined,
      body: req.body,
      status,
      ms: state.now() - interaction.dispatchedAt,
      messageId,
    });
    state.notify();
  }

  function liveMessage(id: string | undefined): RecordedMessage {
    const message = id === undefined ? undefined : state.messages.get(id);
    if (message === undefined || message.deleted) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    }
    return message;
  }

  /** @original: the response message, or for a component interaction the message the component is on. */
  function originalOf(interaction: InteractionRecord): RecordedMessage {
    if (interaction.ackType === undefined) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'not-acknowledged');
    }
    return liveMessage(interaction.originalMessageId);
  }

  function webhookMessageOf(interaction: InteractionRecord, messageId: string): RecordedMessage {
    if (messageId === '@original') return originalOf(interaction);
    if (!interaction.followupIds.has(messageId) && messageId !== interaction.originalMessageId) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    }
    return liveMessage(messageId);
  }

  // ---------------------------------------------------------------------------------------------------
  // Gateway, users, application.

  add('GET', '/gateway', () => ({ status: 200, body: { url: gatewayUrl() } }), false);
  add('GET', '/gateway/bot', () => ({
    status: 200,
    body: {
      url: gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    },
  }));
  add('GET', '/users/@me', () => ({
    status: 200,
    body: { ...userPayload(world.bot), verified: true, mfa_enabled: true, locale: 'en-US', email: null },
  }));
  add('GET', '/users/:user', (_req, p) => {
    const user = world.users.get(p['user'] ?? '');
    if (user === undefined) throw new DiscordError(404, 10013, 'Unknown User', 'unknown-resource');
    return { status: 200, body: userPayload(user) };
  });
  const application = (): Reply => ({
    status: 200,
    body: {
      id: state.applicationId,
      name: world.bot.username,
      icon: null,
      description: 'Fake application',
      summary: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: '0'.repeat(64),
      flags: 1 << 19,
      owner: userPayload(userOf(world, world.ownerId)),
      team: null,
      bot: userPayload(world.bot),
      tags: [],
      install_params: undefined,
      integration_types_config: { '0': {} },
      approximate_guild_count: 1,
      interactions_endpoint_url: null,
      redirect_uris: [],
    },
  });
  add('GET', '/applications/@me', application);
  add('GET', '/oauth2/applications/@me', application);

  // ---------------------------------------------------------------------------------------------------
  // Application commands.

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
    if (guildId !== world.guildId) throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
    const list = state.guildCommands.get(guildId) ?? [];
    state.guildCommands.set(guildId, list);
    return list;
  }

  function commandIssues(command: unknown, index: number | undefined): Issue[] {
    const prefix = index === undefined ? [] : [index];
    const issues: Issue[] = [];
    if (!isRecord(command)) return issues;
    const type = command['type'] ?? 1;
    const name = command['name'];
    if (
      type === 1 &&
      (typeof name !== 'string' ||
        !/^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u.test(name) ||
        name !== name.toLowerCase())
    ) {
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
        if (
          typeof optionName !== 'string' ||
          !/^[-_'\p{L}\p{N}]{1,32}$/u.test(optionName) ||
          optionName !== optionName.toLowerCase()
        ) {
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
    return issues;
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

  // ---------------------------------------------------------------------------------------------------
  // Interaction callbacks.

  const ALLOWED_CALLBACKS: Record<number, readonly number[]> = {
    2: [4, 5, 9],
    3: [4, 5, 6, 7, 9],
    4: [8],
    5: [4, 5, 6, 7],
  };
  const CALLBACK_SCHEMA: Record<number, SchemaName> = {
    4: 'CreateMessageInteractionCallbackRequest',
    5: 'CreateMessageInteractionCallbackRequest',
    6: 'UpdateMessageInteractionCallbackRequest',
    7: 'UpdateMessageInteractionCallbackRequest',
    8: 'ApplicationCommandAutocompleteCallbackRequest',
    9: 'ModalInteractionCallbackRequest',
  };

  add(
    'POST',
    '/interactions/:interaction/:token/callback',
    (req, p) => {
      const interaction = state.interactions.get(p['interaction'] ?? '');
      if (interaction === undefined || interaction.token !== p['token']) {
        throw new DiscordError(404, 10062, 'Unknown interaction', 'unknown-resource');
      }
      if (interaction.ackType !== undefined) {
        record(interaction, 'callback', req, 400);
        throw new DiscordError(
          400,
          40060,
          'Interaction has already been acknowledged.',
          'already-acknowledged',
        );
      }
      const elapsed = state.now() - interaction.dispatchedAt;
      if (elapsed > state.answerWindowMs) {
        record(interaction, 'callback', req, 404);
        throw new DiscordError(404, 10062, 'Unknown interaction', 'late-answer');
      }
      const body = req.body;
      const type = isRecord(body) ? body['type'] : undefined;
      const schema = typeof type === 'number' ? CALLBACK_SCHEMA[type] : undefined;
      if (schema === undefined || !isRecord(body)) {
        record(interaction, 'callback', req, 400);
        throw invalidForm([
          { path: ['type'], code: 'BASE_TYPE_CHOICES', message: `Value must be one of (4, 5, 6, 7, 8, 9).` },
        ]);
      }
      const callbackType = type as number;
      if (!(ALLOWED_CALLBACKS[interaction.type] ?? []).includes(callbackType)) {
        record(interaction, 'callback', req, 400);
        const error = invalidForm([
          {
            path: ['type'],
            code: 'INTERACTION_RESPONSE_TYPE_INVALID',
            message: 'Interaction response type is invalid for this interaction.',
          },
        ]);
        throw new DiscordError(400, 50035, error.message, 'wrong-callback-type', error.errors);
      }
      const data = isRecord(body['data']) ? body['data'] : {};
      try {
        const schemaProblems = schemaIssues(schema, body);
        if (schemaProblems.length > 0) throw invalidForm(schemaProblems);
        if (callbackType === 8) {
          const problems = autocompleteIssues(body['data']);
          if (problems.length > 0) {
            const error = invalidForm(problems);
            throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
          }
        } else if (callbackType === 4 || callbackType === 7) {
          const problems = messageLimitIssues(data);
          if (problems.length > 0) {
            const error = invalidForm(problems, ['data']);
            throw new DiscordError(400, 50035, error.message, 'limit', error.errors);
          }
          if (callbackType === 4 && isEmptyMessage(data, req.files.length)) {
            throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
          }
        }
      } catch (error) {
        record(interaction, 'callback', req, error instanceof DiscordError ? error.status : 500);
        throw error;
      }

      interaction.ackType = callbackType;
      interaction.ackAt = state.now();
      if (interaction.deadline !== undefined) clearTimeout(interaction.deadline);
      let messageId: string | undefined;
      let message: RecordedMessage | undefined;
      if (callbackType === 4 || callbackType === 5) {
        const flags = typeof data['flags'] === 'number' ? data['flags'] : 0;
        interaction.ephemeral = (flags & EPHEMERAL) !== 0;
        message = newMessage(req, callbackType === 4 ? data : { flags }, interaction.channelId, {
          interactionId: interaction.id,
          webhook: true,
          flags: callbackType === 5 ? LOADING : 0,
        });
        state.storeMessage(message);
        interaction.originalMessageId = message.id;
        messageId = message.id;
        if (callbackType === 4)
          recordMentions(req, '/interactions/:interaction/:token/callback', data, message.id);
      } else if (callbackType === 6 || callbackType === 7) {
        interaction.originalMessageId = interaction.componentMessageId;
        messageId = interaction.componentMessageId;
        if (callbackType === 7 && messageId !== undefined) {
          message = state.messages.get(messageId);
          if (message !== undefined) applyEdit(req, message, data);
          recordMentions(req, '/interactions/:interaction/:token/callback', data, messageId);
        }
      } else if (callbackType === 8) {
        const choices = Array.isArray(data['choices']) ? data['choices'].filter(isRecord) : [];
        interaction.choices = choices.map((c) => ({
          name: String(c['name']),
          value: c['value'] as string | number,
        }));
      }
      const withResponse = req.query.get('with_response') === 'true';
      record(interaction, 'callback', req, withResponse ? 200 : 204, messageId);
      if (!withResponse) return { status: 204 };
      return {
        status: 200,
        body: {
          interaction: {
            id: interaction.id,
            type: interaction.type,
            activity_instance_id: null,
            response_message_id: messageId ?? null,
            response_message_loading: callbackType === 5,
            response_message_ephemeral: interaction.ephemeral,
          },
          resource:
            callbackType === 8
              ? { type: callbackType }
              : { type: callbackType, ...(message === undefined ? {} : { message: messageJson(message) }) },
        },
      };
    },
    false,
  );

  // ---------------------------------------------------------------------------------------------------
  // Interaction webhooks (editReply, followUp, fetchReply, deleteReply).

  /**
   * Runs an interaction-webhook handler: the token must belong to a live interaction of this application
   * and the interaction must have been acknowledged; every outcome, refusals included, is recorded once
   * in the interaction's responses.
   */
  function viaInteractionWebhook(
    kindOf: (p: Params) => ResponseKind,
    run: (req: Request, p: Params, interaction: InteractionRecord) => { reply: Reply; messageId?: string },
  ): Handler {
    return (req, p) => {
      const interaction = state.interactionsByToken.get(p['token'] ?? '');
      if (p['app'] !== state.applicationId || interaction === undefined) {
        throw new DiscordError(404, 10015, 'Unknown Webhook', 'unknown-resource');
      }
      const kind = kindOf(p);
      try {
        if (state.now() - interaction.dispatchedAt > state.tokenLifetimeMs) {
          throw new DiscordError(401, 50027, 'Invalid Webhook Token', 'expired-token');
        }
        if (interaction.ackType === undefined) {
          throw new DiscordError(404, 10015, 'Unknown Webhook', 'not-acknowledged');
        }
        const { reply, messageId } = run(req, p, interaction);
        if (req.method !== 'GET') record(interaction, kind, req, reply.status, messageId);
        return reply;
      } catch (error) {
        if (error instanceof DiscordError && req.method !== 'GET')
          record(interaction, kind, req, error.status);
        throw error;
      }
    };
  }

  const messageKind =
    (original: ResponseKind, other: ResponseKind) =>
    (p: Params): ResponseKind =>
      p['message'] === '@original' ? original : other;

  add(
    'PATCH',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('edit-original', 'edit-followup'), (req, p, interaction) => {
      const body = isRecord(req.body) ? req.body : {};
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      validate('IncomingWebhookUpdateRequestPartial', body, body);
      applyEdit(req, message, body);
      recordMentions(req, '/webhooks/:app/:token/messages/:message', body, message.id);
      return { reply: { status: 200, body: messageJson(message) }, messageId: message.id };
    }),
    false,
  );
  add(
    'GET',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('edit-original', 'edit-followup'), (_req, p, interaction) => {
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      return { reply: { status: 200, body: messageJson(message) }, messageId: message.id };
    }),
    false,
  );
  add(
    'DELETE',
    '/webhooks/:app/:token/messages/:message',
    viaInteractionWebhook(messageKind('delete-original', 'delete-followup'), (_req, p, interaction) => {
      const message = webhookMessageOf(interaction, p['message'] ?? '@original');
      message.deleted = true;
      state.notify();
      return { reply: { status: 204 }, messageId: message.id };
    }),
    false,
  );
  add(
    'POST',
    '/webhooks/:app/:token',
    viaInteractionWebhook(
      () => 'followup',
      (req, _p, interaction) => {
        const body = isRecord(req.body) ? req.body : {};
        validate('IncomingWebhookRequestPartial', body, body);
        if (isEmptyMessage(body, req.files.length)) {
          throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
        }
        const wait = req.query.get('wait') === 'true';
        // After a deferred reply (5) the first follow-up fills in the loading message instead of posting
        // anew (keeping the defer's ephemeral flag), as Discord does.
        const loading =
          interaction.ackType === 5 ? state.messages.get(interaction.originalMessageId ?? '') : undefined;
        let message: RecordedMessage;
        if (loading !== undefined && !loading.deleted && (loading.flags & LOADING) !== 0) {
          applyEdit(req, loading, { ...body, flags: loading.flags & SUPPRESS_EMBEDS }, { asEdit: false });
          message = loading;
        } else {
          message = newMessage(req, body, interaction.channelId, {
            interactionId: interaction.id,
            webhook: true,
          });
          state.storeMessage(message);
          interaction.followupIds.add(message.id);
        }
        recordMentions(req, '/webhooks/:app/:token', body, message.id);
        return {
          reply: wait ? { status: 200, body: messageJson(message) } : { status: 204 },
          messageId: message.id,
        };
      },
    ),
    false,
  );

  // ---------------------------------------------------------------------------------------------------
  // Channels and messages.

  add('GET', '/channels/:channel', (_req, p) => {
    const id = p['channel'] ?? '';
    if (id === world.dmChannelId) return { status: 200, body: dmChannelPayload(world) };
    const channel = world.channels.get(id);
    if (channel === undefined) throw new DiscordError(404, 10003, 'Unknown Channel', 'unknown-resource');
    return { status: 200, body: channelPayload(world, channel, state.now) };
  });
  add('POST', '/channels/:channel/typing', (_req, p) => {
    requireChannel(p['channel'] ?? '');
    return { status: 204 };
  });
  add('GET', '/channels/:channel/messages', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory);
    const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 50) || 50));
    const list = state
      .messagesIn(channelId)
      .filter((m) => !m.deleted && (m.flags & EPHEMERAL) === 0)
      .reverse()
      .slice(0, limit);
    return { status: 200, body: list.map(messageJson) };
  });
  add('GET', '/channels/:channel/messages/:message', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory);
    const message = liveMessage(p['message']);
    if (message.channelId !== channelId || (message.flags & EPHEMERAL) !== 0) {
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    }
    return { status: 200, body: messageJson(message) };
  });
  add('POST', '/channels/:channel/messages', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    const channel = world.channels.get(channelId);
    if (channel !== undefined && ![0, 2, 5, 10, 11, 12, 13].includes(channel.type)) {
      throw new DiscordError(400, 50008, 'Cannot send messages in a non-text channel', 'unknown-resource');
    }
    const isThreadChannel = channel !== undefined && isThread(channel);
    requirePermission(
      channelId,
      PermissionFlagsBits.ViewChannel,
      isThreadChannel ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages,
    );
    if (req.files.length > 0) requirePermission(channelId, PermissionFlagsBits.AttachFiles);
    const body = isRecord(req.body) ? req.body : {};
    validate('MessageCreateRequest', body, body);
    if (isEmptyMessage(body, req.files.length)) {
      throw new DiscordError(400, 50006, 'Cannot send an empty message', 'empty-message');
    }
    const reference = body['message_reference'];
    if (isRecord(reference) && reference['fail_if_not_exists'] !== false) {
      const target = state.messages.get(String(reference['message_id']));
      if (target === undefined || target.deleted || target.channelId !== channelId) {
        throw invalidForm([
          {
            path: ['message_reference'],
            code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
            message: 'Unknown message',
          },
        ]);
      }
    }
    const message = newMessage(req, body, channelId, {});
    state.storeMessage(message);
    recordMentions(req, '/channels/:channel/messages', body, message.id);
    return { status: 200, body: messageJson(message) };
  });
  add('PATCH', '/channels/:channel/messages/:message', (req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    const message = liveMessage(p['message']);
    if (message.channelId !== channelId)
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    const body = isRecord(req.body) ? req.body : {};
    validate('MessageEditRequestPartial', body, body);
    if (message.authorId !== world.bot.id) {
      // Only flags (SUPPRESS_EMBEDS) may change on someone else's message; tts/enforce_nonce/allowed_mentions
      // ride along in discord.js edits and change nothing.
      const others = ['content', 'embeds', 'components', 'attachments', 'poll'].filter(
        (key) => body[key] != null,
      );
      if (others.length > 0) {
        throw new DiscordError(403, 50005, 'Cannot edit a message authored by another user', 'cannot-edit');
      }
      requirePermission(channelId, PermissionFlagsBits.ManageMessages);
    } else {
      recordMentions(req, '/channels/:channel/messages/:message', body, message.id);
    }
    applyEdit(req, message, body);
    return { status: 200, body: messageJson(message) };
  });
  add('DELETE', '/channels/:channel/messages/:message', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    const message = liveMessage(p['message']);
    if (message.channelId !== channelId)
      throw new DiscordError(404, 10008, 'Unknown Message', 'unknown-resource');
    if (message.authorId !== world.bot.id) requirePermission(channelId, PermissionFlagsBits.ManageMessages);
    message.deleted = true;
    state.notify();
    return { status: 204 };
  });
  add('PUT', '/channels/:channel/messages/:message/reactions/:emoji/@me', (_req, p) => {
    const channelId = p['channel'] ?? '';
    requireChannel(channelId);
    requirePermission(channelId, PermissionFlagsBits.AddReactions, PermissionFlagsBits.ReadMessageHistory);
    liveMessage(p['message']);
    return { status: 204 };
  });

  // ---------------------------------------------------------------------------------------------------
  // Guilds.

  const requireGuild = (id: string | undefined): void => {
    if (id !== world.guildId) throw new DiscordError(404, 10004, 'Unknown Guild', 'unknown-resource');
  };
  add('GET', '/guilds/:guild', (_req, p) => {
    requireGuild(p['guild']);
    return { status: 200, body: guildPayload(world) };
  });
  add('GET', '/guilds/:guild/channels', (_req, p) => {
    requireGuild(p['guild']);
    const list = [...world.channels.values()].filter((c) => !isThread(c));
    return { status: 200, body: list.map((c) => channelPayload(world, c, state.now)) };
  });
  add('GET', '/guilds/:guild/members/:user', (_req, p) => {
    requireGuild(p['guild']);
    const userId = p['user'] ?? '';
    if (!world.memberRoles.has(userId))
      throw new DiscordError(404, 10007, 'Unknown Member', 'unknown-resource');
    return { status: 200, body: memberPayload(world, userId) };
  });

  // ---------------------------------------------------------------------------------------------------
  // Dispatch.

  function match(
    method: string,
    segments: string[],
  ): { route: Route; params: Params } | 'method' | undefined {
    let pathMatched = false;
    for (const route of routes) {
      if (route.parts.length !== segments.length) continue;
      const params: Params = {};
      let ok = true;
      for (let i = 0; i < route.parts.length; i++) {
        const part = route.parts[i] ?? '';
        const segment = segments[i] ?? '';
        if (part.startsWith(':')) params[part.slice(1)] = segment;
        else if (part !== segment) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    return pathMatched ? 'method' : undefined;
  }

  /** Discord's bucket headers; `over` when this request went past the bucket (discord.js never should). */
  function rateLimit(route: string, majorId: string): { headers: Record<string, string>; over: boolean } {
    const key = `${route}:${majorId}`;
    const now = state.now();
    let bucket = buckets.get(key);
    if (bucket === undefined || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + RATE_WINDOW_MS };
      buckets.set(key, bucket);
    }
    bucket.count += 1;
    const resetAfter = Math.max(0, bucket.resetAt - now) / 1000;
    return {
      over: bucket.count > RATE_LIMIT,
      headers: {
        'X-RateLimit-Limit': String(RATE_LIMIT),
        'X-RateLimit-Remaining': String(Math.max(0, RATE_LIMIT - bucket.count)),
        'X-RateLimit-Reset': (bucket.resetAt / 1000).toFixed(3),
        'X-RateLimit-Reset-After': resetAfter.toFixed(3),
        'X-RateLimit-Bucket': Buffer.from(route).toString('base64url').slice(0, 16),
      },
    };
  }

  function injected(req: Request, template: string): Reply | undefined {
    const rule = state.injections.find(
      (r) =>
        (r.times ?? 1) > 0 &&
        (r.method === undefined || r.method.toUpperCase() === req.method) &&
        (typeof r.route === 'string'
          ? r.route === template || r.route === req.path
          : r.route.test(template) || r.route.test(req.path)),
    );
    if (rule === undefined) return undefined;
    rule.times = (rule.times ?? 1) - 1;
    return injectedReply(rule);
  }

  /**
   * Synchronous on purpose: a handler wakes waiters (finalReply ...) and their continuations must see the
   * request already recorded with its route and status.
   */
  function run(req: Request, recorded: RecordedRequest): Reply {
    const { reply, template } = dispatch(req);
    recorded.route = template;
    recorded.status = reply.status;
    state.notify();
    return reply;
  }

  function dispatch(req: Request): { reply: Reply; template: string } {
    const found = match(req.method, req.segments);
    if (found === undefined || found === 'method') {
      const template = req.path;
      const status = found === 'method' ? 405 : 404;
      state.violation({
        kind: 'unknown-route',
        message: `${req.method} ${req.path} is not a Discord route this fake knows`,
        method: req.method,
        route: template,
        code: 0,
      });
      return {
        template,
        reply: {
          status,
          body: { message: status === 405 ? '405: Method Not Allowed' : '404: Not Found', code: 0 },
        },
      };
    }
    const { route, params } = found;
    if (route.auth) {
      const ok = req.authHeader === `Bot ${state.token}`;
      if (!ok) {
        state.violation({
          kind: 'unauthorized',
          message: `${req.method} ${route.template} without a valid bot Authorization`,
          method: req.method,
          route: route.template,
          code: 0,
        });
        return {
          template: route.template,
          reply: { status: 401, body: { message: '401: Unauthorized', code: 0 } },
        };
      }
    }
    const injection = injected(req, route.template);
    if (injection !== undefined) return { template: route.template, reply: injection };
    const majorId = params['channel'] ?? params['guild'] ?? params['token'] ?? '';
    const { headers, over } = rateLimit(`${req.method} ${route.template}`, majorId);
    if (over) {
      const retryAfter = Number(headers['X-RateLimit-Reset-After']);
      state.violation({
        kind: 'limit',
        message: `${req.method} ${route.template} exceeded its rate limit bucket`,
        method: req.method,
        route: route.template,
        code: 0,
      });
      return {
        template: route.template,
        reply: injectedReply({ route: route.template, status: 429, retryAfter }),
      };
    }
    try {
      const reply = route.handler(req, params);
      return { template: route.template, reply: { ...reply, headers: { ...headers, ...reply.headers } } };
    } catch (error) {
      if (!(error instanceof DiscordError)) throw error;
      if (error.kind !== null) {
        state.violation({
          kind: error.kind,
          message: `${req.method} ${route.template}: ${error.code} ${error.message}`,
          method: req.method,
          route: route.template,
          code: error.code,
          details: error.errors,
        });
      }
      const body: Record<string, unknown> = { message: error.message, code: error.code };
      if (error.errors !== undefined) body['errors'] = error.errors;
      return { template: route.template, reply: { status: error.status, body, headers } };
    }
  }

  return {
    handle(request, response) {
      void (async () => {
        const at = state.now();
        const url = new URL(request.url ?? '/', 'http://localhost');
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks);

        if (url.pathname.startsWith('/cdn/')) {
          const file = state.files.get(url.pathname);
          if (file === undefined) {
            response.writeHead(404).end();
          } else {
            response.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.data.length });
            response.end(file.data);
          }
          return;
        }
        if (!url.pathname.startsWith(`${API_PREFIX}/`)) {
          state.violation({
            kind: 'unknown-route',
            message: `request outside ${API_PREFIX}: ${url.pathname}`,
          });
          send(response, { status: 404, body: { message: '404: Not Found', code: 0 } });
          return;
        }
        const path = url.pathname.slice(API_PREFIX.length);
        const segments = path
          .split('/')
          .filter(Boolean)
          .map((s) => decodeURIComponent(s));
        const decodedPath = `/${segments.join('/')}`;
        const contentType = request.headers['content-type'] ?? '';
        let body: unknown;
        const files: Request['files'] = [];
        let parseError = false;
        try {
          if (contentType.startsWith('multipart/form-data')) {
            const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
            for (const [field, value] of form.entries()) {
              if (typeof value === 'string') {
                if (field === 'payload_json') body = JSON.parse(value);
              } else {
                files.push({
                  field,
                  filename: value.name,
                  contentType: value.type || 'application/octet-stream',
                  data: Buffer.from(await value.arrayBuffer()),
                });
              }
            }
          } else if (raw.length > 0) {
            body = JSON.parse(raw.toString('utf8'));
          }
        } catch {
          parseError = true;
        }
        const authHeader = request.headers.authorization;
        const req: Request = {
          method: (request.method ?? 'GET').toUpperCase(),
          path: decodedPath,
          segments,
          query: url.searchParams,
          body,
          files,
          authorized: authHeader === `Bot ${state.token}`,
          authHeader,
        };
        const recorded: RecordedRequest = {
          method: req.method,
          route: decodedPath,
          path: decodedPath,
          query: Object.fromEntries(url.searchParams),
          body,
          files: files.map(({ field, filename, contentType: type, data }): RecordedFile => ({
            field,
            filename,
            contentType: type,
            size: data.length,
          })),
          authorized: req.authorized,
          status: 0,
          at,
        };
        state.requests.push(recorded);
        if (parseError) {
          state.violation({
            kind: 'schema',
            message: `${req.method} ${decodedPath}: body is not valid JSON`,
          });
          recorded.status = 400;
          send(response, { status: 400, body: { message: '400: Bad Request', code: 50109 } });
          return;
        }
        send(response, run(req, recorded));
      })().catch((error: unknown) => {
        state.violation({ kind: 'schema', message: `fake Discord internal error: ${String(error)}` });
        if (!response.headersSent)
          send(response, { status: 500, body: { message: '500: Internal Server Error', code: 0 } });
      });
    },
  };
}

function injectedReply(rule: InjectRule): Reply {
  if (rule.status === 429) {
    const retryAfter = rule.retryAfter ?? 1;
    const global = rule.global === true;
    return {
      status: 429,
      body: rule.body ?? { message: 'You are being rate limited.', retry_after: retryAfter, global, code: 0 },
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Scope': global ? 'global' : 'user',
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': String(retryAfter),
        ...(global ? { 'X-RateLimit-Global': 'true' } : {}),
      },
    };
  }
  const defaultMessage =
    rule.status >= 500 ? `${rule.status}: Internal Server Error` : `${rule.status}: Error`;
  return { status: rule.status, body: rule.body ?? { message: defaultMessage, code: 0 } };
}

function send(response: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  const json = JSON.stringify(reply.body);
  headers['Content-Type'] = 'application/json';
  response.writeHead(reply.status, headers).end(json);
}
