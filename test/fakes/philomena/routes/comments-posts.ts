/**
 * Comments and forum posts by id, and their searches (newest first). A comment on a deleted image is
 * refused (403) and left out of search.
 */
import { empty, json, numeric, type Board } from '../board-context.js';
import { byCreatedDesc, listSearch } from '../listing.js';
import { commentJson, commentSearchSchema, postJson, postSearchSchema } from '../render.js';

export function registerCommentAndPostRoutes(board: Board): void {
  board.add('GET', /^\/comments\/([^/]+)$/, (_ctx, m) => {
    const id = numeric(m[1]);
    if (id === undefined) return board.badRequest();
    const comment = board.data.comments.find((c) => c.id === id);
    if (!comment) return board.notFound();
    const image = board.data.images.get(comment.imageId);
    if (image && image.deletionReason !== null) return empty(403);
    return json(200, { comment: commentJson(comment) });
  });
  board.add('GET', /^\/posts\/([^/]+)$/, (_ctx, m) => {
    const id = numeric(m[1]);
    if (id === undefined) return board.badRequest();
    const post = board.data.posts.find((p) => p.id === id);
    return post ? json(200, { post: postJson(post) }) : board.notFound();
  });
  board.add('GET', /^\/search\/comments$/, (ctx) => {
    const visible = board.data.comments.filter((c) => {
      const image = board.data.images.get(c.imageId);
      return image === undefined || image.deletionReason === null;
    });
    return listSearch(board, ctx, 'comments', visible, commentSearchSchema, commentJson, byCreatedDesc);
  });
  board.add('GET', /^\/search\/posts$/, (ctx) =>
    listSearch(board, ctx, 'posts', board.data.posts, postSearchSchema, postJson, byCreatedDesc),
  );
}
