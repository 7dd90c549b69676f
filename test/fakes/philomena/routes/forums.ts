/**
 * Forums, their topics (sticky first) and topic posts (oldest first), with Derpibooru's 500 for posts of
 * an unknown topic or past the last page.
 */
import { json, numeric, type Board, type HttpAnswer } from '../board-context.js';
import { paginate, pagination } from '../listing.js';
import { postJson, topicJson } from '../render.js';

const topicPosts = (board: Board, forum: string, slug: string) =>
  board.data.posts
    .filter((p) => p.topicKey === `${forum}/${slug}`)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
const findTopic = (board: Board, forum: string, slug: string) =>
  board.data.topics.find((t) => t.forum === forum && t.slug === slug);
const forumJson = (board: Board, shortName: string) => {
  const forum = board.data.forums.find((f) => f.shortName === shortName);
  if (!forum) return undefined;
  const topics = board.data.topics.filter((t) => t.forum === shortName);
  return {
    name: forum.name,
    short_name: forum.shortName,
    description: forum.description,
    topic_count: topics.length,
    post_count: board.data.posts.filter((p) => p.topicKey.startsWith(`${shortName}/`)).length,
  };
};

export function registerForumRoutes(board: Board): void {
  board.add('GET', /^\/forums$/, () => {
    const forums = board.data.forums.map((f) => forumJson(board, f.shortName));
    return json(200, { forums, total: forums.length });
  });
  board.add('GET', /^\/forums\/([^/]+)$/, (_ctx, m) => {
    const forum = forumJson(board, m[1] ?? '');
    return forum ? json(200, { forum }) : board.notFound();
  });
  board.add('GET', /^\/forums\/([^/]+)\/topics$/, (ctx, m) => {
    const forum = m[1] ?? '';
    const { page, perPage } = pagination(ctx.params, 25);
    const topics = board.data.topics
      .filter((t) => t.forum === forum)
      .map((t) => topicJson(t, topicPosts(board, t.forum, t.slug)))
      .sort((a, b) => {
        if (a['sticky'] !== b['sticky']) return a['sticky'] ? -1 : 1;
        return String(b['last_replied_to_at'] ?? '').localeCompare(String(a['last_replied_to_at'] ?? ''));
      });
    return json(200, { topics: paginate(topics, page, perPage), total: topics.length });
  });
  board.add('GET', /^\/forums\/([^/]+)\/topics\/([^/]+)$/, (_ctx, m) => {
    const topic = findTopic(board, m[1] ?? '', m[2] ?? '');
    return topic
      ? json(200, { topic: topicJson(topic, topicPosts(board, topic.forum, topic.slug)) })
      : board.notFound();
  });
  board.add('GET', /^\/forums\/([^/]+)\/topics\/([^/]+)\/posts$/, (ctx, m) => {
    const topic = findTopic(board, m[1] ?? '', m[2] ?? '');
    // Derpibooru crashes on these (500); upstream answers 404.
    const broken = (): HttpAnswer =>
      board.style === 'derpibooru'
        ? json(500, { error: 'Internal Error' })
        : json(404, { error: 'Not found' });
    if (!topic) return broken();
    const posts = topicPosts(board, topic.forum, topic.slug);
    const { page, perPage } = pagination(ctx.params, 25);
    if (page > Math.max(1, Math.ceil(posts.length / perPage))) return broken();
    return json(200, { posts: paginate(posts, page, perPage).map(postJson), total: posts.length });
  });
  board.add('GET', /^\/forums\/([^/]+)\/topics\/([^/]+)\/posts\/([^/]+)$/, (_ctx, m) => {
    const id = numeric(m[3]);
    if (id === undefined) return board.badRequest();
    const topic = findTopic(board, m[1] ?? '', m[2] ?? '');
    if (!topic) return board.notFound();
    const post = board.data.posts.find((p) => p.id === id && p.topicKey === `${topic.forum}/${topic.slug}`);
    return post ? json(200, { post: postJson(post) }) : board.notFound();
  });
}
