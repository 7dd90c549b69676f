/**
 * Links to tag pages and searches unfurl (and Show card shows them) as cards: the tag's card, or the
 * search's first result with its total and a link, under the rules of every card (outside age-restricted
 * channels a search shows only safe images and a tag card only its safe example).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_IDS, FORUM, GALLERY_IDS, IDS, POST_IDS, TAG_SLUGS } from '../fakes/philomena/index.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

async function replyTo(content: string, channel: 'plain' | 'ageRestricted' = 'plain') {
  const posted = await h.discord.sendMessage({ channel, content });
  const [reply] = await h.discord.waitFor(() => (posted.replies().length > 0 ? posted.replies() : undefined));
  return reply;
}

describe('tag and search links', () => {
  it('GIVEN a link to a tag page THEN the tag card, linking to the tag on the site', async () => {
    const reply = await replyTo(`${h.booru.url}/tags/${TAG_SLUGS.twilightSparkle}`);
    expect(reply?.embeds).toHaveLength(1);
    expect(String(reply?.embeds[0]?.['url'])).toContain('/tags/');
    expect(JSON.stringify(reply?.embeds[0])).toMatch(/twilight sparkle/i);
  });

  it('GIVEN a link to a search in a plain channel THEN its first safe result, with the total and a link to the search', async () => {
    const reply = await replyTo(`${h.booru.url}/search?q=${encodeURIComponent('pony')}`);
    expect(reply?.content).toMatch(
      /^Search `pony` on .*: [\d,]+ results?, <http\S+\/search\?q=\(pony\)%2C%20safe>$/m,
    );
    expect(reply?.embeds).toHaveLength(1);
    expect(JSON.stringify(reply?.embeds[0])).toMatch(/safe/i);
  });

  it('GIVEN Show card on a message with a tag link THEN the tag card', async () => {
    const reply = await h.discord
      .sendMessageCommand({
        name: 'Show card',
        channel: 'plain',
        targetMessage: { content: `${h.booru.url}/tags/${TAG_SLUGS.safe}` },
      })
      .finalReply();
    expect(reply.embeds).toHaveLength(1);
    expect(String(reply.embeds[0]?.['url'])).toContain('/tags/');
  });

  it('GIVEN a link to a comment on a safe image THEN the comment (author, excerpt) and the image’s credited card', async () => {
    const reply = await replyTo(`${h.booru.url}/images/${IDS.safe}#comment_${COMMENT_IDS.onSafe}`);
    expect(reply?.embeds).toHaveLength(2);
    expect(String(reply?.embeds[0]?.['title'])).toMatch(/^Comment by .* on image \d+$/);
    expect(String(reply?.embeds[0]?.['description'])).toContain('Lovely picture!');
    expect(String(reply?.embeds[1]?.['url'])).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN a link to a comment on a suggestive image THEN no excerpt in a plain channel, the excerpt in an age-restricted one', async () => {
    const link = `${h.booru.url}/images/${IDS.suggestive}#comment_${COMMENT_IDS.onSuggestive}`;
    const plain = await replyTo(link);
    expect(String(plain?.embeds[0]?.['description'])).toContain('Not shown here');
    expect(JSON.stringify(plain?.embeds)).not.toContain('Spicy one');
    const adult = await replyTo(link, 'ageRestricted');
    expect(String(adult?.embeds[0]?.['description'])).toContain('Spicy one');
  });

  it('GIVEN a link to a comment of a deleted image THEN no card (the board no longer shows it)', async () => {
    const posted = await h.discord.sendMessage({
      channel: 'plain',
      content: `${h.booru.url}/images/${IDS.deleted}#comment_${COMMENT_IDS.onDeleted}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(JSON.stringify(posted.replies())).not.toContain('This one will be gone.');
  });

  it('GIVEN links to a forum topic and to a post in a plain channel THEN their cards: the forum, the author, the figures and the link, no title or excerpt', async () => {
    // Changed on purpose (page words follow the pictures): forum words are members' own, which no rating
    // covers.
    const topic = await replyTo(`${h.booru.url}/forums/${FORUM.dis}/topics/${FORUM.botTopic}`);
    expect(String(topic?.embeds[0]?.['url'])).toContain(`/forums/${FORUM.dis}/topics/`);
    expect(String(topic?.embeds[0]?.['description'])).toMatch(/posts/);
    expect(String(topic?.embeds[0]?.['title'])).toMatch(/^A topic in /);
    expect(JSON.stringify(topic?.embeds)).not.toContain('Bot testing thread');
    const postLink = `${h.booru.url}/forums/${FORUM.dis}/topics/${FORUM.botTopic}?post_id=${POST_IDS.botFirst}#post_${POST_IDS.botFirst}`;
    const post = await replyTo(postLink);
    expect(String(post?.embeds[0]?.['url'])).toContain(`post_id=${POST_IDS.botFirst}`);
    expect(JSON.stringify(post?.embeds)).not.toContain('Post number 1 in the bot thread');
    expect(post?.allowedMentions).toMatchObject({ parse: [] });
    // An age-restricted channel shows the words.
    const adult = await replyTo(postLink, 'ageRestricted');
    expect(String(adult?.embeds[0]?.['title'])).toContain('Bot testing thread');
    expect(String(adult?.embeds[0]?.['description'])).toContain('Post number 1 in the bot thread');
  });

  it('GIVEN a hostile comment and a hostile post THEN their cards ping nobody and stay within Discord’s limits', async () => {
    const before = h.discord.mentionRisks.length;
    const comment = await replyTo(`${h.booru.url}/images/${IDS.safe}#comment_${COMMENT_IDS.hostile}`);
    const post = await replyTo(
      `${h.booru.url}/forums/${FORUM.dis}/topics/${FORUM.botTopic}?post_id=${POST_IDS.hostile}`,
    );
    for (const reply of [comment, post]) {
      expect(reply?.embeds.length).toBeGreaterThan(0);
      // Every @everyone and @here the board text held is broken with a zero-width space.
      expect(JSON.stringify(reply?.embeds)).not.toMatch(/@(?:everyone|here)(?!\u200b)/);
    }
    expect(h.discord.mentionRisks.slice(before)).toEqual([]);
    expect(h.discord.violations).toEqual([]);
  });

  it('GIVEN a link to a gallery THEN its card (title, creator, image count) and its cover as a credited card under the rating rule', async () => {
    const reply = await replyTo(`${h.booru.url}/galleries/${GALLERY_IDS.fixtureFirst}`);
    expect(String(reply?.embeds[0]?.['url'])).toContain(`/galleries/${GALLERY_IDS.fixtureFirst}`);
    expect(String(reply?.embeds[0]?.['description'])).toMatch(/^by \*\*.+\*\*/);
    expect(reply?.embeds.length).toBeGreaterThanOrEqual(1);
    // Its cover is not on this board: its words follow a cover that cannot be shown, so none.
    expect(reply?.embeds[0]?.['title']).toBe(`Gallery ${GALLERY_IDS.fixtureFirst}`);
    const owner = await replyTo(`${h.booru.url}/galleries/${GALLERY_IDS.owner}`);
    expect(owner?.embeds[0]?.['title']).toBe('Bot owner favourites');
    expect(String(owner?.embeds[0]?.['description'])).toContain('Images for **gallery** tests.');
  });

  it('GIVEN a link to a profile THEN a card with the name, the link and the uploads a search finds', async () => {
    const reply = await replyTo(`${h.booru.url}/profiles/Uploader+Pony`);
    expect(reply?.embeds[0]?.['title']).toBe('Uploader Pony');
    expect(String(reply?.embeds[0]?.['url'])).toMatch(/\/profiles\/Uploader\+Pony$/);
    expect(String(reply?.embeds[0]?.['description'])).toMatch(/[\d,]+ uploads? rated safe/);
  });
});
