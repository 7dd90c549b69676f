/**
 * The board key never travels with text a member wrote: Philomena runs a query with the rights
 * of the key's owner, so `my:upvotes`, `my:uploads` (anonymous uploads included), `my:hidden` and, with a
 * staff key, `ip:` or `fingerprint:` would read the owner's private data for any member. Searches, the tag
 * card's example search and reverse searches go anonymously, with the server's filter as `filter_id`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEY, FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { API, boardRequests, setServerFilter } from '../support/board.js';
import { expectCleanRun } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ withKey: true });
});
afterAll(async () => {
  await h.close();
});

/** The ids the board gives the key's owner for `q`: what a lent key would have shown the member. */
async function ownerSees(q: string): Promise<number[]> {
  const url = new URL(`${h.booru.url}${API}/search/images`);
  url.searchParams.set('q', q);
  url.searchParams.set('key', FAKE_KEY);
  url.searchParams.set('per_page', '50');
  const body = (await (await fetch(url)).json()) as { images: { id: number }[] };
  return body.images.map((image) => image.id);
}

describe('the key is never lent to a member', () => {
  it.each(['my:upvotes', 'my:uploads', 'my:faves', 'my:watched', 'my:hidden'])(
    'GIVEN a member without a linked key searching %s THEN they are told to /me link, the board gets no request, and they see none of the owner’s private list',
    async (query) => {
      const private_ = await ownerSees(query);
      const mark = h.booru.requests.length;
      const reply = await h.discord
        .sendCommand({ name: 'search', options: { query }, channel: 'ageRestricted' })
        .finalReply();
      // Their own lists need their own account (issue 22): the owner's key is never lent, and the term
      // never goes to the board without a key.
      expect(boardRequests(h.booru, mark, `${API}/search/images`)).toEqual([]);
      expect(reply.content).toContain('/me link');
      const shown = JSON.stringify(reply.embeds);
      for (const id of private_) expect(shown).not.toContain(`/images/${id}"`);
      expectCleanRun(h);
    },
  );

  it('GIVEN the owner’s list is not empty THEN the check above can fail (the fake board honours my: with the key)', async () => {
    expect((await ownerSees('my:uploads')).length).toBeGreaterThan(0);
  });

  it('GIVEN a server filter THEN the search carries it as filter_id, still without the key', async () => {
    await setServerFilter(h, FILTER_IDS.public);
    const mark = h.booru.requests.length;
    await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'ageRestricted' })
      .finalReply();
    const [request] = boardRequests(h.booru, mark, `${API}/search/images`);
    expect(request?.query.get('filter_id')).toBe(String(FILTER_IDS.public));
    expect(request?.query.has('key')).toBe(false);
  });

  it('GIVEN /tag, /image, /featured and /reverse THEN no board request carries the key', async () => {
    const mark = h.booru.requests.length;
    // A new image: one an earlier search returned is cached under its id (searches seed images).
    const fresh = await h.booru.addImage({ tags: ['safe', 'artist:fake artist'] });
    await h.discord
      .sendCommand({ name: 'image', options: { id: String(fresh) }, channel: 'plain' })
      .finalReply();
    await h.discord.sendCommand({ name: 'tag', options: { name: 'pony' }, channel: 'plain' }).finalReply();
    await h.discord.sendCommand({ name: 'featured', channel: 'plain' }).finalReply();
    await h.discord
      .sendCommand({
        name: 'reverse',
        options: { url: `${h.booru.url}/img/view/2023/3/1/${IDS.safe}.png` },
        channel: 'plain',
      })
      .finalReply();
    const requests = h.booru.requests.slice(mark);
    expect(requests.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        `${API}/search/images`,
        `${API}/images/${fresh}`,
        `${API}/images/featured`,
        `${API}/search/reverse`,
      ]),
    );
    expect(requests.filter((r) => r.query.has('key')).map((r) => r.path)).toEqual([]);
  });
});
