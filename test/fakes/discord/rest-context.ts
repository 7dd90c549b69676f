/**
 * What the REST route modules (`routes/*.ts`) share with the dispatcher in rest.ts: the request and reply
 * shapes, the error a handler throws to refuse like Discord, and the context each module registers its
 * routes on. The context is built once per fake by `createFakeRest`, so nothing here holds state.
 */
import type { SeedChannel, World } from './payloads.js';
import type { FakeState } from './state.js';
import type { ViolationKind } from './types.js';
import { errorTree, type EditedMessage, type Issue, type SchemaName } from './validate.js';

// Message flags the fake reads or sets.
export const SUPPRESS_EMBEDS = 1 << 2;
export const EPHEMERAL = 1 << 6;
export const LOADING = 1 << 7;
export const SUPPRESS_NOTIFICATIONS = 1 << 12;
export { IS_COMPONENTS_V2 } from './v2.js';

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface RestRequest {
  readonly method: string;
  readonly path: string;
  readonly segments: string[];
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly files: { field: string; filename: string; contentType: string; data: Buffer }[];
  readonly authorized: boolean;
  readonly authHeader: string | undefined;
}

export type Params = Record<string, string>;
export type Handler = (req: RestRequest, params: Params) => Reply;

/**
 * Thrown by a handler to answer with Discord's status and JSON error; the dispatcher also records it as
 * a violation of `kind` unless that is null.
 */
export class DiscordError {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly message: string,
    readonly kind: ViolationKind | null,
    readonly errors?: Record<string, unknown>,
  ) {}
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function invalidForm(
  issues: readonly Issue[],
  prefix: readonly (string | number)[] = [],
): DiscordError {
  return new DiscordError(400, 50035, 'Invalid Form Body', 'schema', errorTree(issues, prefix));
}

/** One fake's REST surface as the route modules see it: its state, the route table and the checks. */
export interface RestContext {
  readonly state: FakeState;
  /** The first server: the bot's user and the DM live here. */
  readonly world: World;
  /** Every server (`world` first); REST knows the channels of all of them. */
  readonly worlds: readonly World[];
  /** A guild channel or thread of any server, with its server (undefined: unknown, deleted, or the DM). */
  channelOf(channelId: string): { world: World; channel: SeedChannel } | undefined;
  /** The server a guild id names. */
  worldOfGuild(guildId: string | undefined): World | undefined;
  /** A channel or thread of a server the bot is not in, with its server. */
  foreignChannelOf(channelId: string): { world: World; channel: SeedChannel } | undefined;
  /** A server the bot is not in, by id. */
  foreignWorldOfGuild(guildId: string | undefined): World | undefined;
  /** The server whose users a message in this channel is written by (the first server for DMs). */
  messageWorldOf(channelId: string): World;
  /** The guild id of a channel of any server (the bot's or not); undefined for DMs. */
  guildIdOfChannel(channelId: string): string | undefined;
  readonly gatewayUrl: () => string;
  /**
   * Registers a route; the first registered template that fits a path wins, so a literal segment
   * (`/users/@me`) goes before the parameter it would also fit (`/users/:user`). `auth: false` for the
   * routes Discord serves without Authorization (interaction callbacks, webhook tokens, /gateway).
   */
  add(method: string, template: string, handler: Handler, auth?: boolean): void;
  /**
   * The bot's permissions in a channel (the DM's are fixed, as Discord's are for apps; none in a server
   * it is not in or a DM between users).
   */
  botPermissionsIn(channelId: string): bigint;
  /**
   * 404 10003 Unknown Channel unless the channel exists: one of the servers' (also those the bot is not
   * in), the bot's DM, or a DM between users.
   */
  requireChannel(channelId: string): void;
  /**
   * 403 50001 Missing Access if the bot cannot see the channel: View Channel denied there, a server the
   * bot is not in, a DM between users.
   */
  requireAccess(channelId: string): void;
  /**
   * 403 50001 Missing Access if the bot cannot see the channel, else 403 50013 Missing Permissions unless
   * it holds every bit there.
   */
  requirePermission(channelId: string, ...bits: bigint[]): void;
  /**
   * 400 50035 for a body off Discord's OpenAPI schema, then for one past the documented limits; `editing`:
   * the message an edit changes (whether it is Components V2 decides how the body is read).
   */
  validate(name: SchemaName, body: unknown, limitsOf: unknown, editing?: EditedMessage): void;
  /** Records a message body whose allowed_mentions could ping someone. */
  recordMentions(req: RestRequest, route: string, body: unknown, messageId: string | undefined): void;
}
