/**
 * User profiles by id.
 */
import { json, numeric, type Board } from '../board-context.js';
import { userJson } from '../render.js';

export function registerProfileRoutes(board: Board): void {
  board.add('GET', /^\/profiles\/([^/]+)$/, (_ctx, m) => {
    const id = numeric(m[1]);
    if (id === undefined) return board.badRequest();
    const user = board.data.users.find((u) => u.id === id);
    return user ? json(200, { user: userJson(user, board.base) }) : board.notFound();
  });
}
