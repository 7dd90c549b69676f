/**
 * Comments and forum posts that arrive while the board runs (a test's `booru.addComment` and
 * `booru.addPost`): the next id above every comment (post), `created_at` now unless given. They are
 * searchable at once (`/search/comments`, `/search/posts`) and answer by id. `reset()` builds a fresh data
 * set, so they go again.
 */
import type { Board } from './board-context.js';
import { iso } from './data.js';

/** A comment for `booru.addComment`. */
export interface NewComment {
  readonly imageId: number;
  readonly body: string | null;
  /** Default `Commenter Pony` (no account). */
  readonly author?: string;
  readonly at?: Date | number | string;
}

/** A forum post for `booru.addPost`, in an existing or a made-up topic. */
export interface NewPost {
  readonly forum: string;
  readonly topic: string;
  readonly body: string | null;
  /** Default `Poster Pony`; null: anonymous (the board's API then sends no name). */
  readonly author?: string | null;
  readonly at?: Date | number | string;
}

function timestamp(at: Date | number | string | undefined): string {
  if (at === undefined) return iso(Date.now());
  return iso(new Date(at).getTime());
}

export function addComment(board: Board, spec: NewComment): number {
  const id = Math.max(0, ...board.data.comments.map((c) => c.id)) + 1;
  const at = timestamp(spec.at);
  board.data.comments.push({
    id,
    imageId: spec.imageId,
    author: spec.author ?? 'Commenter Pony',
    userId: null,
    avatar: 'https://example.invalid/avatars/commenter.png',
    body: spec.body,
    createdAt: at,
    updatedAt: at,
    editedAt: null,
    editReason: null,
  });
  return id;
}

export function addPost(board: Board, spec: NewPost): number {
  const id = Math.max(0, ...board.data.posts.map((p) => p.id)) + 1;
  const at = timestamp(spec.at);
  board.data.posts.push({
    id,
    topicKey: `${spec.forum}/${spec.topic}`,
    author: spec.author === undefined ? 'Poster Pony' : spec.author,
    userId: null,
    avatar: 'https://example.invalid/avatars/poster.png',
    body: spec.body,
    createdAt: at,
    updatedAt: at,
    editedAt: null,
    editReason: null,
  });
  return id;
}
