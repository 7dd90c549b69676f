/**
 * The local board's comment and post searches as the real board answers them (docs/board-behaviour.md):
 * newest first, the body as the default field, `author:` and the post search's `forum:` (a quoted term
 * holds its field: `"forum:dis"`), a query that does not parse refused with 400; and comments and posts a
 * test adds while it runs (runtime-words.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentsResponseSchema, postsResponseSchema } from '../../../src/philomena/schemas.js';
import { FORUM, IDS, startFakePhilomena, type FakePhilomena } from './index.js';

let booru: FakePhilomena;
beforeAll(async () => {
  booru = await startFakePhilomena();
});
afterAll(async () => {
  await booru.close();
});

async function search(kind: 'comments' | 'posts', q: string): Promise<{ status: number; ids: number[] }> {
  const params = new URLSearchParams({ q, per_page: '50' });
  const response = await fetch(`${booru.url}/api/v1/json/search/${kind}?${params.toString()}`);
  const body: unknown = await response.json();
  if (response.status !== 200) return { status: response.status, ids: [] };
  const items =
    kind === 'comments' ? commentsResponseSchema.parse(body).comments : postsResponseSchema.parse(body).posts;
  return { status: 200, ids: items.map((item) => item.id) };
}

describe('the comment and post searches', () => {
  it('GIVEN forum:dis, "forum:dis" and forum:art THEN each forum’s posts only, newest first', async () => {
    const dis = await search('posts', 'forum:dis');
    expect(dis.ids.length).toBe(30);
    expect(dis.ids).toEqual([...dis.ids].sort((a, b) => b - a));
    expect((await search('posts', '"forum:dis"')).ids).toEqual(dis.ids);
    const art = await search('posts', 'forum:art');
    expect(art.ids.length).toBeGreaterThan(0);
    expect(art.ids.some((id) => dis.ids.includes(id))).toBe(false);
  });

  it('GIVEN a query that does not parse THEN 400, for comments and posts', async () => {
    expect((await search('comments', '(body:x')).status).toBe(400);
    expect((await search('posts', '(body:x')).status).toBe(400);
  });

  it('GIVEN a comment and a post added THEN they are found at once, newest first, and reset removes them', async () => {
    const comment = booru.addComment({ imageId: IDS.safe, body: 'freshly added words', author: 'New Pony' });
    const post = booru.addPost({ forum: FORUM.dis, topic: FORUM.botTopic, body: 'freshly added words' });
    expect((await search('comments', '"author:New Pony"')).ids).toEqual([comment]);
    expect((await search('comments', 'freshly')).ids[0]).toBe(comment);
    expect((await search('posts', 'forum:dis')).ids[0]).toBe(post);
    booru.reset();
    expect((await search('comments', 'freshly')).ids).toEqual([]);
    expect((await search('posts', 'freshly')).ids).toEqual([]);
  });
});
