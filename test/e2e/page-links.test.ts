/**
 * Links to tag pages and searches unfurl (and Show card shows them) as cards: the tag's card, or the
 * search's first result with its total and a link, under the rules of every card (outside age-restricted
 * channels a search shows only safe images and a tag card only its safe example).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAG_SLUGS } from '../fakes/philomena/index.js';
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
});
