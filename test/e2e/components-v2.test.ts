/**
 * Components V2 end to end, against the local Discord (which checks every V2 body against Discord's
 * OpenAPI description and documented limits) and the local board: a video that plays, a picture behind
 * Discord's own spoiler, the search grid with its picker, paging inside windows of results, and an expired
 * V2 message that keeps its card.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { componentsOfType, galleryItemsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { FILTER_IDS, IDS, type RecordedRequest } from '../fakes/philomena/index.js';
import { setServerFilter } from '../support/board.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { cardUrl, customIds, embedOf, footerText } from '../support/messages.js';
import { startHarness, type Harness } from '../support/harness.js';
import { unfurlReply } from '../support/waiting.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { BOORU_FILTER_ID: String(FILTER_IDS.everything) } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.booru.clearFaults();
  expectNoDiscordProblems(h.discord);
});

/** Board requests whose path ends with `suffix`, made since `mark`. */
function asked(mark: number, suffix: string): RecordedRequest[] {
  return h.booru.requests.slice(mark).filter((r) => r.path.endsWith(suffix));
}

function idOf(message: RecordedMessage, prefix: string): string {
  const id = customIds(message).find((c) => c.startsWith(prefix));
  expect(id, `a ${prefix} component on the message`).toBeDefined();
  return id ?? '';
}

/** The image ids a grid lists, in order (`N. [#id](page)` lines). */
function listedIds(message: RecordedMessage): number[] {
  return [...textOf(message).matchAll(/^\d+\. \[\\?#(\d+)\]\(/gm)].map((m) => Number(m[1]));
}

async function imageJson(id: number, filterId?: number): Promise<{ tags: string[]; spoilered: boolean }> {
  const filter = filterId === undefined ? '' : `?filter_id=${filterId}`;
  const response = await fetch(`${h.booru.url}/api/v1/json/images/${id}${filter}`);
  return ((await response.json()) as { image: { tags: string[]; spoilered: boolean } }).image;
}

async function tagsOf(id: number): Promise<string[]> {
  return (await imageJson(id)).tags;
}

/** The server's filter is `filterId` for the enclosing describe, then back to Everything. */
function underServerFilter(filterId: number): void {
  beforeAll(async () => {
    await setServerFilter(h, filterId);
  });
  afterAll(async () => {
    await setServerFilter(h, FILTER_IDS.everything);
  });
}

function search(options: Record<string, string>, channel: 'plain' | 'ageRestricted') {
  return h.discord.sendCommand({ name: 'search', options, channel }).finalReply();
}

describe('the image card on Components V2', () => {
  it("GIVEN /image of a webm THEN a V2 card whose gallery plays the board's mp4, credited, sourced and linked, pinging nobody", async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.webm) }, channel: 'plain' })
      .finalReply();
    expect(isComponentsV2(reply)).toBe(true);
    expect(reply.content).toBe('');
    expect(reply.embeds).toEqual([]);
    const items = galleryItemsOf(reply);
    expect(items).toHaveLength(1);
    expect(items[0]?.media.url).toMatch(new RegExp(`/${IDS.webm}/full\\.mp4$`));
    expect(items[0]?.spoiler ?? false).toBe(false);
    // Alt text from the tags, the rating first.
    expect(items[0]?.description).toMatch(/^safe/);
    const text = textOf(reply);
    expect(cardUrl(reply)).toBe(`${h.booru.url}/images/${IDS.webm}`);
    expect(text).toContain('[fake artist](');
    expect(text).toContain(`https://www.deviantart.com/fake/art/image-${IDS.webm}`);
    // The container's accent colour is the rating's (safe: green).
    expect(componentsOfType(reply, 17)[0]?.['accent_color']).toBe(0x57f287);
    expect(reply.allowedMentions).toEqual({ parse: [] });
  });

  it('GIVEN a chat link to a webm THEN the unfurl is the V2 card that plays it; with a second link, embeds', async () => {
    const single = await unfurlReply(h.discord, 'plain', `${h.booru.url}/images/${IDS.webm}`);
    expect(isComponentsV2(single)).toBe(true);
    expect(galleryItemsOf(single)[0]?.media.url).toMatch(/\/full\.mp4$/);
    const pair = await unfurlReply(
      h.discord,
      'plain',
      `${h.booru.url}/images/${IDS.webm} ${h.booru.url}/images/${IDS.safe}`,
    );
    expect(isComponentsV2(pair)).toBe(false);
    expect(pair.embeds).toHaveLength(2);
  });

  it('GIVEN /image of an animated gif or a still THEN the embed: it shows the same picture with more room', async () => {
    for (const id of [IDS.animatedGif, IDS.safe]) {
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' })
        .finalReply();
      expect(isComponentsV2(reply)).toBe(false);
      expect(embedOf(reply).image?.url).toMatch(/\/img\//);
    }
  });

  it('GIVEN /image of a webm the rating rule keeps off a plain channel THEN no video, no gallery at all', async () => {
    const id = await h.booru.addImage({
      tags: ['explicit', 'artist:fake artist', 'webm', 'animated'],
      format: 'webm',
    });
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(id) }, channel: 'plain' })
      .finalReply();
    expect(galleryItemsOf(reply)).toEqual([]);
    expect(JSON.stringify(reply)).not.toMatch(/\.mp4|\.webm|\/img\//);
  });
});

describe('spoilers under the Default filter (hides explicit and grotesque, spoilers questionable)', () => {
  underServerFilter(FILTER_IDS.default);

  it('GIVEN an image the filter spoilers, in an age-restricted channel THEN the picture behind a native spoiler, no tags, and Reveal shows the full card to the clicker alone', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.questionable) }, channel: 'ageRestricted' })
      .finalReply();
    expect(isComponentsV2(reply)).toBe(true);
    expect(galleryItemsOf(reply).map((item) => item.spoiler)).toEqual([true]);
    expect(textOf(reply)).not.toMatch(/\*\*Tags/);
    const revealed = await h.discord
      .sendButton({ customId: idOf(reply, 'img:reveal:'), message: reply })
      .finalReply();
    expect(revealed.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(embedOf(revealed).image?.url).toMatch(/\/img\//);
  });

  it('GIVEN an image the filter hides THEN no picture at all, not even spoilered: Reveal stays the way to see it', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.explicit) }, channel: 'ageRestricted' })
      .finalReply();
    expect(galleryItemsOf(reply)).toEqual([]);
    expect(embedOf(reply).image).toBeUndefined();
    expect(customIds(reply).some((c) => c.startsWith('img:reveal:'))).toBe(true);
  });

  it('GIVEN a grid in an age-restricted channel THEN spoilered items are spoilered and hidden ones absent', async () => {
    const reply = await search({ query: 'questionable || explicit', view: 'grid' }, 'ageRestricted');
    const ids = listedIds(reply);
    expect(ids.length).toBeGreaterThan(0);
    const items = galleryItemsOf(reply);
    for (const id of ids) {
      const image = await imageJson(id, FILTER_IDS.default);
      expect(image.tags).not.toContain('explicit');
      // Spoilered exactly where the board says this filter spoilers it.
      const item = items.find((entry) => entry.description?.startsWith(`#${id} `));
      if (item !== undefined) expect(item.spoiler === true).toBe(image.spoilered);
    }
    expect(items.some((item) => item.spoiler === true)).toBe(true);
  });
});

describe('a filter with a hidden search (hidden_complex)', () => {
  underServerFilter(FILTER_IDS.ownerPublic);

  it('GIVEN an image it spoilers THEN no picture at all: the bot cannot tell it from one the hidden search hides', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.spoilerTagged) }, channel: 'plain' })
      .finalReply();
    expect(galleryItemsOf(reply)).toEqual([]);
    expect(embedOf(reply).image).toBeUndefined();
    expect(customIds(reply).some((c) => c.startsWith('img:reveal:'))).toBe(true);
  });
});

describe('/search view:grid', () => {
  it('GIVEN a grid in a plain channel THEN up to ten safe images in one gallery, each listed with a link, read in one board call of 50', async () => {
    const mark = h.booru.requests.length;
    const reply = await search({ query: 'pony', view: 'grid' }, 'plain');
    expect(isComponentsV2(reply)).toBe(true);
    const ids = listedIds(reply);
    expect(ids.length).toBeGreaterThan(1);
    expect(ids.length).toBeLessThanOrEqual(10);
    for (const id of ids) {
      expect(await tagsOf(id)).toContain('safe');
      expect(textOf(reply)).toContain(`(${h.booru.url}/images/${id})`);
    }
    expect(galleryItemsOf(reply).length).toBeLessThanOrEqual(10);
    const searches = asked(mark, '/search/images');
    expect(searches).toHaveLength(1);
    expect(searches[0]?.query.get('per_page')).toBe('50');
    expect(searches[0]?.query.get('q')).toBe('(pony), safe');
    // The picker offers exactly the images listed.
    const select = componentsOfType(reply, 3)[0] as { options: { value: string }[] } | undefined;
    expect(select?.options.map((option) => Number(option.value))).toEqual(ids);
  });

  it('GIVEN a pick THEN its full card to the picker alone, with no board call (the search cached it)', async () => {
    const reply = await search({ query: 'pony', view: 'grid', sort: 'score' }, 'plain');
    const [first] = listedIds(reply);
    const mark = h.booru.requests.length;
    const picked = await h.discord
      .sendSelect({ customId: idOf(reply, 'srch:pick:'), message: reply, values: [String(first)] })
      .finalReply();
    expect(picked.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(cardUrl(picked)).toBe(`${h.booru.url}/images/${first}`);
    expect(asked(mark, `/images/${first}`)).toEqual([]);
    // The grid itself is left as it was.
    expect(h.discord.message(reply.id)?.edits).toBe(reply.edits);
  });

  it('GIVEN Next on a grid THEN the next ten in place, cut from the same window: no board call', async () => {
    const reply = await search({ query: 'pony', view: 'grid', sort: 'oldest' }, 'plain');
    const firstIds = listedIds(reply);
    expect(footerText(reply)).toMatch(/page 1 of (\d+)$/);
    const pages = Number(/page 1 of (\d+)$/.exec(footerText(reply))?.[1]);
    expect(pages).toBeGreaterThan(1);
    const mark = h.booru.requests.length;
    const next = await h.discord
      .sendButton({ customId: idOf(reply, 'srch:next:'), message: reply })
      .finalReply();
    expect(next.id).toBe(reply.id);
    expect(isComponentsV2(next)).toBe(true);
    expect(footerText(next)).toMatch(/page 2 of \d+$/);
    const secondIds = listedIds(next);
    expect(secondIds.length).toBeGreaterThan(0);
    expect(secondIds.some((id) => firstIds.includes(id))).toBe(false);
    expect(asked(mark, '/search/images')).toEqual([]);
  });

  it('GIVEN a grid whose buttons expired THEN the controls come off and the grid stays', async () => {
    const reply = await search({ query: 'pony', view: 'grid' }, 'plain');
    h.botClock.advance(16 * 60_000);
    const click = h.discord.sendButton({ customId: idOf(reply, 'srch:next:'), message: reply });
    const told = await click.finalReply().catch(() => undefined);
    await h.discord.waitFor(() => (h.discord.message(reply.id)?.edits ?? 0) > reply.edits || undefined);
    const after = h.discord.message(reply.id);
    expect(after === undefined ? false : isComponentsV2(after)).toBe(true);
    expect(after === undefined ? [] : customIds(after)).toEqual([]);
    expect(after === undefined ? '' : textOf(after)).toBe(textOf(reply));
    expect(after === undefined ? 0 : galleryItemsOf(after).length).toBe(galleryItemsOf(reply).length);
    const notes = await h.discord.waitFor(() => {
      const texts = click.followUps().map((m) => m.content);
      return texts.length > 0 ? texts : undefined;
    });
    expect(notes.join('\n')).toContain('expired');
    void told;
  });
});

describe('/search cards read in windows', () => {
  it('GIVEN Next, Previous and Random inside the first window THEN no board call after the first', async () => {
    const first = await search({ query: 'pony', sort: 'faves' }, 'plain');
    const mark = h.booru.requests.length;
    const second = await h.discord
      .sendButton({ customId: idOf(first, 'srch:next:'), message: first })
      .finalReply();
    expect(footerText(second)).toMatch(/ 2 of \d+$/);
    const back = await h.discord
      .sendButton({ customId: idOf(second, 'srch:prev:'), message: second })
      .finalReply();
    expect(cardUrl(back)).toBe(cardUrl(first));
    expect(asked(mark, '/search/images')).toEqual([]);
  });

  it('GIVEN an opened result THEN /image of it costs no board call', async () => {
    const first = await search({ query: 'pony', sort: 'wilson' }, 'plain');
    const id = /\/images\/(\d+)$/.exec(cardUrl(first))?.[1];
    expect(id).toBeDefined();
    const mark = h.booru.requests.length;
    await h.discord.sendCommand({ name: 'image', options: { id: id ?? '' }, channel: 'plain' }).finalReply();
    expect(asked(mark, `/images/${id}`)).toEqual([]);
  });
});

describe('SEARCH_WINDOW', () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness({ env: { SEARCH_WINDOW: '2' } });
  });
  afterAll(async () => {
    await small.close();
  });

  it('GIVEN windows of 2 THEN page 2 is cut from the first window and page 3 reads the second', async () => {
    const reads = (mark: number) =>
      small.booru.requests.slice(mark).filter((r) => r.path.endsWith('/search/images'));
    const mark = small.booru.requests.length;
    const first = await small.discord
      .sendCommand({ name: 'search', options: { query: 'pony', sort: 'oldest' }, channel: 'plain' })
      .finalReply();
    expect(reads(mark).map((r) => [r.query.get('page'), r.query.get('per_page')])).toEqual([['1', '2']]);
    const afterFirst = small.booru.requests.length;
    const second = await small.discord
      .sendButton({ customId: idOf(first, 'srch:next:'), message: first })
      .finalReply();
    expect(footerText(second)).toMatch(/ 2 of \d+$/);
    expect(reads(afterFirst)).toEqual([]);
    const third = await small.discord
      .sendButton({ customId: idOf(second, 'srch:next:'), message: second })
      .finalReply();
    expect(footerText(third)).toMatch(/ 3 of \d+$/);
    expect(reads(afterFirst).map((r) => [r.query.get('page'), r.query.get('per_page')])).toEqual([
      ['2', '2'],
    ]);
    expectNoDiscordProblems(small.discord);
  });

  it('GIVEN windows of 2 and a grid THEN the grid reads whole tens: each page is ten results from one read', async () => {
    const reads = (mark: number) =>
      small.booru.requests.slice(mark).filter((r) => r.path.endsWith('/search/images'));
    const mark = small.booru.requests.length;
    const grid = await small.discord
      .sendCommand({ name: 'search', options: { query: 'pony', view: 'grid' }, channel: 'plain' })
      .finalReply();
    expect(listedIds(grid).length).toBe(10);
    expect(reads(mark).map((r) => r.query.get('per_page'))).toEqual(['10']);
    const next = await small.discord
      .sendButton({ customId: idOf(grid, 'srch:next:'), message: grid })
      .finalReply();
    expect(listedIds(next).length).toBeGreaterThan(0);
    expect(listedIds(next).some((id) => listedIds(grid).includes(id))).toBe(false);
    expectNoDiscordProblems(small.discord);
  });
});
