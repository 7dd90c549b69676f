/** The public record types of the fake Discord (what tests read back). */

export interface RecordedRequest {
  readonly method: string;
  /** Route template with parameters normalised, e.g. `/channels/:channel/messages/:message`. */
  route: string;
  /** Decoded path after `/api/v10`, e.g. `/webhooks/1/tok/messages/@original`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Parsed JSON, or the `payload_json` of a multipart body; undefined when there was none. */
  readonly body: unknown;
  readonly files: readonly RecordedFile[];
  readonly authorized: boolean;
  status: number;
  /** Date.now() when the request arrived. */
  readonly at: number;
}

export interface RecordedFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
}

export type ViolationKind =
  | 'schema'
  | 'limit'
  /** Past Discord's global 50 requests a second (global-limit.ts). */
  | 'global-limit'
  | 'empty-message'
  | 'late-answer'
  | 'expired-token'
  | 'already-acknowledged'
  | 'not-acknowledged'
  | 'wrong-callback-type'
  | 'unknown-route'
  | 'unknown-resource'
  | 'unauthorized'
  | 'missing-permissions'
  | 'cannot-edit'
  | 'followup-limit'
  | 'gateway';

export interface Violation {
  readonly kind: ViolationKind;
  readonly message: string;
  readonly method?: string;
  readonly route?: string;
  /** Discord's JSON error code given back, when the violation was answered over REST. */
  readonly code?: number;
  readonly details?: unknown;
  readonly at: number;
}

export interface RecordedMessage {
  readonly id: string;
  readonly channelId: string;
  readonly authorId: string;
  readonly bot: boolean;
  content: string;
  embeds: Record<string, unknown>[];
  components: Record<string, unknown>[];
  /** As last sent by the bot (undefined: the request carried none). */
  allowedMentions: unknown;
  flags: number;
  /** `type` 1 (FORWARD) for a forwarded message; absent or 0 for a reply. */
  messageReference: { message_id: string; channel_id?: string; guild_id?: string; type?: number } | undefined;
  /**
   * A forwarded message's `message_snapshots[].message`: the original's type, content, embeds,
   * attachments, timestamps, flags, mentions and components as they were when it was forwarded.
   */
  readonly messageSnapshots?: readonly Record<string, unknown>[];
  attachments: Record<string, unknown>[];
  /** Set for interaction responses and follow-ups. */
  readonly interactionId: string | undefined;
  readonly webhookId: string | undefined;
  /** The `nonce` the bot sent with it (POST /channels/:channel/messages), echoed back by Discord. */
  readonly nonce?: string | number;
  readonly createdAt: number;
  editedAt: number | undefined;
  /** How many times the bot edited it. */
  edits: number;
  deleted: boolean;
}

/**
 * A POST /channels/:channel/messages with `enforce_nonce: true` whose nonce the same author had used in
 * the same channel within the window (5 minutes): no new message, the earlier one answered (200).
 */
export interface NonceReplay {
  readonly channelId: string;
  readonly authorId: string;
  readonly nonce: string | number;
  /** The earlier message, which the answer carried again. */
  readonly messageId: string;
  readonly at: number;
}

export type ResponseKind =
  'callback' | 'edit-original' | 'delete-original' | 'followup' | 'edit-followup' | 'delete-followup';

export interface RecordedResponse {
  readonly kind: ResponseKind;
  /** Interaction callback type (4 reply, 5 defer, 6 deferred update, 7 update, 8 autocomplete, 9 modal). */
  readonly callbackType: number | undefined;
  readonly body: unknown;
  readonly status: number;
  /** Milliseconds since the interaction was dispatched. */
  readonly ms: number;
  readonly messageId: string | undefined;
  /**
   * True when Discord made this message ephemeral though the bot did not ask: a user-installed app
   * answering in a server that is not its own, where the member may not Use External Apps.
   */
  readonly forcedEphemeral?: boolean;
}

export interface MentionRisk {
  readonly method: string;
  readonly route: string;
  readonly messageId: string | undefined;
  /** What the request carried; undefined means the default (parse everyone, users and roles). */
  readonly allowedMentions: unknown;
  /** Does the content contain something Discord would turn into a ping? */
  readonly contentHasMention: boolean;
  readonly at: number;
}

export interface Choice {
  readonly name: string;
  readonly value: string | number;
}

export interface GatewayClose {
  readonly code: number;
  readonly reason: string;
  /** Who closed the socket. */
  readonly by: 'fake' | 'client';
  readonly at: number;
}
