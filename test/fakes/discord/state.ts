/** The fake Discord's in-memory state, shared by the REST server, the gateway and the test handles. */
import type { PrivateChannel, World } from './payloads.js';
import type {
  Choice,
  MentionRisk,
  NonceReplay,
  RecordedMessage,
  RecordedRequest,
  RecordedResponse,
  Violation,
} from './types.js';

export interface InjectRule {
  /** Matched against the route template (`/channels/:channel/messages`) and the decoded path. */
  readonly route: RegExp | string;
  readonly method?: string;
  readonly status: number;
  readonly body?: unknown;
  /** Seconds, for 429 answers (Retry-After header and retry_after body field). */
  readonly retryAfter?: number;
  /** A global rate limit (X-RateLimit-Global, scope global). */
  readonly global?: boolean;
  /** How many requests this rule answers; default 1. */
  times?: number;
}

export interface InteractionRecord {
  readonly id: string;
  readonly token: string;
  /** 2 application command, 3 message component, 4 autocomplete, 5 modal submit. */
  readonly type: number;
  readonly channelId: string;
  readonly guildId: string | undefined;
  readonly userId: string;
  /** 0 a server, 1 the bot's DM, 2 a DM or group DM between users. */
  readonly context: number;
  /** `authorizing_integration_owners` as dispatched: "0" → guild id (or "0"), "1" → the installing user. */
  readonly owners: Readonly<Record<string, string>>;
  /**
   * Discord makes every response and follow-up ephemeral: a user install in a server the app is not in,
   * where the member may not Use External Apps.
   */
  readonly forceEphemeral: boolean;
  readonly dispatchedAt: number;
  /** For components: the message the component is on. */
  readonly componentMessageId: string | undefined;
  ackType: number | undefined;
  ackAt: number | undefined;
  originalMessageId: string | undefined;
  ephemeral: boolean;
  choices: Choice[] | undefined;
  /** The modal the bot answered with (callback 9), as Discord took it: what the member can submit. */
  modal: Record<string, unknown> | undefined;
  readonly responses: RecordedResponse[];
  readonly followupIds: Set<string>;
  deadline: NodeJS.Timeout | undefined;
}

export interface StoredCommand extends Record<string, unknown> {
  readonly id: string;
  readonly name: string;
  readonly type: number;
}

/** How long `enforce_nonce` remembers a nonce ("a few minutes" in Discord's docs). */
export const NONCE_WINDOW_MS = 5 * 60_000;

export interface FakeState {
  readonly token: string;
  readonly applicationId: string;
  /** The first server (the bot's user, the DM). */
  readonly world: World;
  /** Every server, `world` first: REST knows all their channels. */
  readonly worlds: readonly World[];
  /** Servers the bot is not in (reached through user installs only): REST answers 403 50001 there. */
  readonly foreignWorlds: readonly World[];
  /** DMs and group DMs between users (the bot is in none): REST answers 403 50001 there. */
  readonly privateChannels: ReadonlyMap<string, PrivateChannel>;
  readonly answerWindowMs: number;
  readonly tokenLifetimeMs: number;
  readonly now: () => number;
  readonly snowflake: () => string;
  /** What GET /gateway/bot recommends: the shard count and session_start_limit.max_concurrency. */
  readonly shards: number;
  readonly maxConcurrency: number;
  /** session_start_limit.remaining: 1000 a day, one less per IDENTIFY that starts a session. */
  sessionStartsRemaining: number;
  baseUrl: string;
  readonly messages: Map<string, RecordedMessage>;
  readonly channelOrder: Map<string, string[]>;
  readonly interactions: Map<string, InteractionRecord>;
  readonly interactionsByToken: Map<string, InteractionRecord>;
  readonly globalCommands: StoredCommand[];
  readonly guildCommands: Map<string, StoredCommand[]>;
  readonly requests: RecordedRequest[];
  readonly violations: Violation[];
  readonly mentionRisks: MentionRisk[];
  /** `channel author nonce` → the message created with it, for `enforce_nonce`. */
  readonly nonces: Map<string, { messageId: string; at: number }>;
  readonly nonceReplays: NonceReplay[];
  readonly injections: InjectRule[];
  /**
   * CDN path → bytes, for attachments the fake serves; `fault` (`cdnFile`): the connection is reset, or
   * the headers and one byte are sent and then nothing.
   */
  readonly files: Map<string, { data: Buffer; contentType: string; fault?: 'reset' | 'stall' }>;
  /** Servers the bot was removed from (`removeBot`): REST answers 403 50001 on their channels. */
  readonly removedFrom: Set<string>;
  violation(v: Omit<Violation, 'at'>): void;
  /** Wake every waiter so it re-checks its condition. */
  notify(): void;
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T>;
  storeMessage(message: RecordedMessage): void;
  /** Messages of a channel in order of creation. */
  messagesIn(channelId: string): RecordedMessage[];
}

export function createState(init: {
  token: string;
  applicationId: string;
  world: World;
  worlds: readonly World[];
  foreignWorlds: readonly World[];
  privateChannels: ReadonlyMap<string, PrivateChannel>;
  answerWindowMs: number;
  tokenLifetimeMs: number;
  now: () => number;
  snowflake: () => string;
  shards: number;
  maxConcurrency: number;
}): FakeState {
  const waiters = new Set<() => void>();
  const state: FakeState = {
    ...init,
    sessionStartsRemaining: 1000,
    baseUrl: '',
    messages: new Map(),
    channelOrder: new Map(),
    interactions: new Map(),
    interactionsByToken: new Map(),
    globalCommands: [],
    guildCommands: new Map(),
    requests: [],
    violations: [],
    mentionRisks: [],
    nonces: new Map(),
    nonceReplays: [],
    injections: [],
    files: new Map(),
    removedFrom: new Set(),
    violation(v) {
      state.violations.push({ ...v, at: init.now() });
      state.notify();
    },
    notify() {
      for (const waiter of [...waiters]) waiter();
    },
    waitFor<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
      const first = check();
      if (first !== undefined) return Promise.resolve(first);
      return new Promise<T>((resolve, reject) => {
        const waiter = (): void => {
          const value = check();
          if (value === undefined) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          clearInterval(poll);
          resolve(value);
        };
        // Conditions may also depend on the bot's side (what discord.js did with an answer): poll too.
        const poll = setInterval(waiter, 10);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          clearInterval(poll);
          reject(new Error(`fake Discord: timed out after ${timeoutMs} ms waiting for ${what()}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    storeMessage(message) {
      state.messages.set(message.id, message);
      const order = state.channelOrder.get(message.channelId) ?? [];
      order.push(message.id);
      state.channelOrder.set(message.channelId, order);
      state.notify();
    },
    messagesIn(channelId) {
      return (state.channelOrder.get(channelId) ?? []).flatMap((id) => {
        const message = state.messages.get(id);
        return message === undefined ? [] : [message];
      });
    },
  };
  return state;
}
