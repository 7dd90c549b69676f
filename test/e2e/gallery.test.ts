/**
 * /gallery end to end against the local board and Discord: a search answers with a list to pick from (one
 * match opens at once), `id:` opens a gallery by number or link, and an open gallery is browsed as a
 * search is, by card and by grid, in the gallery's own order, read in windows. A gallery's words follow its
 * cover outside age-restricted channels; hostile gallery text pings nobody and stays within limits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { GALLERY_IDS, type RecordedRequest } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { commandRuns, componentId } from '../support/command-runs.js';
import { cardUrl, customIds, footerText } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const { send, run: gallery, errorNote } = commandRuns(() => h, 'gallery');

const OWNER = GALLERY_IDS.owner;

/** Everything a member reads of the message: its content, embeds and Components V2 text. */
function allText(message: RecordedMessage): string {
  return [
    message.content,
    JSON.stringify(message.embeds),
    isComponentsV2(message) ? textOf(message) : '',
  ].join('\n');
}

function asked(mark: number, suffix: string): RecordedRequest[] {
  return h.booru.requests.slice(mark).filter((r) => r.path.endsWith(suffix));
}

/** The ids the board itself gives for the gallery's images under `q`, in its gallery order. */
async function boardOrder(galleryId: number, safeOnly: boolean): Promise<number[]> {
  const q = safeOnly ? `(gallery_id:${galleryId}), safe` : `gallery_id:${galleryId}`;
  const params = new URLSearchParams({ q, sf: `gallery_id:${galleryId}`, sd: 'desc', per_page: '50' });
  const response = await fetch(`${h.booru.url}/api/v1/json/search/images?${params.toString()}`);
  const body = (await response.json()) as { images: { id: number }[] };
  return body.images.map((image) => image.id);
}

function imageIdOf(message: RecordedMessage): number {
  return Number(/\/images\/(\d+)/.exec(cardUrl(message))?.[1]);
}

describe('/gallery query', () => {
  it('GIVEN plain words matching one title THEN that gallery opens at once, its title word-matched by title:*word*', async () => {
    const mark = h.booru.requests.length;
    const reply = await gallery({ query: 'Favourites' });
    const search = asked(mark, '/search/galleries')[0];
    expect(search?.query.get('q')).toBe('title:*favourites*');
    expect(reply.content).toContain('**Bot owner favourites**');
    expect(reply.content).toContain(`<${h.booru.url}/galleries/${OWNER}>`);
    expect(footerText(reply)).toMatch(/ 1 of \d+$/);
  });

  it('GIVEN a query matching many THEN a list, newest first, each line with its id and link, a select to open one; in place for the searcher', async () => {
    const list = await gallery({ query: 'title:*safe*' });
    const description = String(list.embeds[0]?.['description']);
    expect(String(list.embeds[0]?.['title'])).toMatch(/^21 galleries on /);
    const ids = [...description.matchAll(/\[#(\d+)\]/g)].map((m) => Number(m[1]));
    expect(ids).toHaveLength(10);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(description).toContain('The newest 10 of 21 are listed');
    // Their covers are not on this board: no cover can be judged, so every title is withheld.
    expect(description).not.toMatch(/safe art/i);
    expect(description).toContain(`Gallery ${ids[0]}: its images cannot be shown here`);
  });

  it('GIVEN the list’s select THEN the chosen gallery opens in place for the searcher, and privately for anyone else', async () => {
    const list = await gallery({ query: `id.gte:${OWNER}` });
    const select = componentId(list, 'gal:open:');
    const other = await h.discord
      .sendSelect({
        message: list,
        customId: select,
        values: [String(OWNER)],
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(other.id).not.toBe(list.id);
    expect(other.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(other.content).toContain('Bot owner favourites');
    const opened = await h.discord
      .sendSelect({ message: list, customId: select, values: [String(OWNER)] })
      .finalReply();
    expect(opened.id).toBe(list.id);
    expect(opened.content).toContain('Bot owner favourites');
    expect(customIds(opened).some((c) => c.startsWith('gal:next:'))).toBe(true);
  });

  it('GIVEN a list asked as a grid THEN the chosen gallery opens as a grid beside the list (an embed cannot become one)', async () => {
    const list = await gallery({ query: `id.gte:${OWNER}`, view: 'grid' }, 'ageRestricted');
    const opened = await h.discord
      .sendSelect({ message: list, customId: componentId(list, 'gal:open:'), values: [String(OWNER)] })
      .finalReply();
    expect(opened.id).not.toBe(list.id);
    expect(opened.flags & MessageFlags.Ephemeral).toBe(0);
    expect(isComponentsV2(opened)).toBe(true);
    expect(textOf(opened)).toContain('Bot owner favourites');
    expect(customIds(opened).some((c) => c.startsWith('gal:pick:'))).toBe(true);
  });

  it('GIVEN a query the board refuses THEN its own error in plain words', async () => {
    const note = await errorNote(send({ query: '(title:best' }));
    expect(note).toMatch(/^The site did not understand that search: \S/);
  });

  it('GIVEN neither query nor id THEN a short private note', async () => {
    expect(await errorNote(send({}))).toBe('Give words to search galleries for, or a gallery number.');
    expect(await errorNote(send({ id: 'not a gallery' }))).toMatch(/^Give a gallery number/);
    expect(await errorNote(send({ id: '99999999' }))).toMatch(/Not found/);
  });
});

describe('an open gallery', () => {
  it('GIVEN /gallery id in a plain channel THEN its safe images card by card in the gallery’s order, paged from one window', async () => {
    const expected = await boardOrder(OWNER, true);
    expect(expected.length).toBeGreaterThan(2);
    const first = await gallery({ id: String(OWNER) });
    // The window may have been read (and cached) by an earlier test: the first such request.
    const search = asked(0, '/search/images').find((r) => r.query.get('sf') === `gallery_id:${OWNER}`);
    expect(search?.query.get('sd')).toBe('desc');
    expect(search?.query.get('q')).toBe(`(gallery_id:${OWNER}), safe`);
    expect(search?.query.get('per_page')).toBe('50');
    const seen = [imageIdOf(first)];
    let page = first;
    const paging = h.booru.requests.length;
    for (let i = 1; i < expected.length; i += 1) {
      page = await h.discord
        .sendButton({ customId: componentId(page, 'gal:next:'), message: page })
        .finalReply();
      expect(page.id).toBe(first.id);
      seen.push(imageIdOf(page));
    }
    expect(seen).toEqual(expected);
    expect(footerText(page)).toMatch(new RegExp(` ${expected.length} of ${expected.length}$`));
    // Every page came from the window the first answer read.
    expect(asked(paging, '/search/images')).toHaveLength(0);
  });

  it('GIVEN a gallery link and view grid in an age-restricted channel THEN every image in a grid in the gallery’s order, picked privately', async () => {
    const expected = await boardOrder(OWNER, false);
    const grid = await gallery({ id: `${h.booru.url}/galleries/${OWNER}`, view: 'grid' }, 'ageRestricted');
    expect(isComponentsV2(grid)).toBe(true);
    expect(textOf(grid)).toContain('Bot owner favourites');
    expect(textOf(grid)).toContain(`1–${expected.length} of ${expected.length}`);
    const pick = componentId(grid, 'gal:pick:');
    const options = JSON.stringify(grid.components);
    const values = [...options.matchAll(/"value":"(\d+)"/g)].map((m) => Number(m[1]));
    expect(values).toEqual(expected);
    const card = await h.discord
      .sendSelect({ message: grid, customId: pick, values: [String(expected[0])] })
      .finalReply();
    expect(cardUrl(card)).toContain(`/images/${expected[0]}`);
  });

  it('GIVEN a gallery answered privately THEN Post publicly posts the page without buttons', async () => {
    const own = await gallery({ id: String(OWNER), private: true });
    const posted = await h.discord
      .sendButton({ customId: componentId(own, 'gal:pub:'), message: own })
      .finalReply();
    expect(posted.id).not.toBe(own.id);
    expect(customIds(posted).filter((c) => c.startsWith('gal:'))).toEqual([]);
    expect(posted.content).toContain('Bot owner favourites');
  });

  it('GIVEN someone else pressing Next THEN they are told only the searcher pages', async () => {
    const first = await gallery({ id: String(OWNER) });
    const other = await h.discord
      .sendButton({
        customId: componentId(first, 'gal:next:'),
        message: first,
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(other.content).toContain('Only the person who searched');
  });
});

describe('gallery words follow the cover', () => {
  it('GIVEN a suggestive cover THEN its title, warning and description are withheld outside age-restricted channels (threads, DMs and user installs too) and shown in one', async () => {
    const foreign = h.discord.foreignGuild;
    for (const [channel, userId] of [
      ['plain', undefined],
      ['threadInPlain', undefined],
      ['dm', undefined],
      [foreign.channels.plain, foreign.memberId],
    ] as const) {
      const reply = await gallery({ id: String(GALLERY_IDS.spicy) }, channel, userId);
      const text = allText(reply);
      expect(text, String(channel)).not.toContain('Spicy');
      expect(text, String(channel)).toContain(`Gallery ${GALLERY_IDS.spicy}`);
      expect(text, String(channel)).toContain(`/galleries/${GALLERY_IDS.spicy}`);
    }
    for (const channel of ['ageRestricted', 'threadInAgeRestricted'] as const) {
      const reply = await gallery({ id: String(GALLERY_IDS.spicy) }, channel);
      expect(reply.content, channel).toContain('Spicy secret collection');
      expect(reply.content, channel).toContain('Spicy warning');
    }
  });

  it('GIVEN galleries listed in a plain channel and an age-restricted one THEN the suggestive cover’s title shows only in the latter', async () => {
    const plain = await gallery({ query: `id.gte:${OWNER}` });
    const plainText = allText(plain);
    expect(plainText).not.toContain('Spicy');
    expect(plainText).toContain(`Gallery ${GALLERY_IDS.spicy}: its images cannot be shown here`);
    expect(plainText).toContain('Bot owner favourites');
    const adult = await gallery({ query: `id.gte:${OWNER}` }, 'ageRestricted');
    expect(allText(adult)).toContain('Spicy secret collection');
  });
});

describe('hostile gallery text', () => {
  it('GIVEN a gallery whose title, warning, description and creator hold mentions, Markdown and thousands of characters THEN list and open forms ping nobody and stay within limits', async () => {
    const before = h.discord.mentionRisks.length;
    const list = await gallery({ query: `id.gte:${OWNER}` });
    const opened = await gallery({ id: String(GALLERY_IDS.hostile) });
    const grid = await gallery({ id: String(GALLERY_IDS.hostile), view: 'grid' });
    for (const reply of [list, opened, grid]) {
      const text = allText(reply);
      expect(text).toMatch(/Hostile/);
      expect(text).not.toMatch(/@(?:everyone|here)(?!\u200b)/);
      expect(reply.allowedMentions).toMatchObject({ parse: [] });
    }
    expect(opened.content.length).toBeLessThanOrEqual(1_000);
    expect(opened.content).toContain('\\*\\*Hostile\\*\\*');
    expect(h.discord.mentionRisks.slice(before)).toEqual([]);
    expect(h.discord.violations).toEqual([]);
  });
});
