/**
 * The rating rule end to end: a picture (or tags, or description) only for images rated exactly `safe`,
 * except in age-restricted channels and their threads. DMs are never age-restricted. The Everything
 * filter is set so that no spoiler gets in the way of the rule under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { BOORU_FILTER_ID: String(FILTER_IDS.everything) } });
});
afterAll(async () => {
  await h.close();
});

const CHANNELS = ['plain', 'ageRestricted', 'threadInPlain', 'threadInAgeRestricted', 'dm'] as const;
const IMAGES = [
  ['safe', IDS.safe],
  ['suggestive', IDS.suggestive],
  ['explicit', IDS.explicit],
  ['no rating', IDS.noRating],
] as const;

function allowed(channel: (typeof CHANNELS)[number], rating: string): boolean {
  return rating === 'safe' || channel === 'ageRestricted' || channel === 'threadInAgeRestricted';
}

function channelOf(channel: (typeof CHANNELS)[number]): ChannelTarget {
  return channel === 'dm' ? h.discord.dmChannelId : channel;
}

function picture(message: RecordedMessage): unknown {
  const embed = message.embeds[0] as { image?: { url?: string }; thumbnail?: { url?: string } } | undefined;
  return embed?.image?.url ?? embed?.thumbnail?.url;
}

const cases = CHANNELS.flatMap((channel) => IMAGES.map(([rating, id]) => [channel, rating, id] as const));

describe('rating matrix', () => {
  it.each(cases)(
    'GIVEN /image in %s of a %s image THEN the picture shows only where allowed',
    async (channel, rating, id) => {
      const reply = await h.discord
        .sendCommand({ name: 'image', options: { id: String(id) }, channel: channelOf(channel) })
        .finalReply();
      expect(reply.embeds).toHaveLength(1);
      if (allowed(channel, rating)) expect(picture(reply)).toBeDefined();
      else {
        expect(picture(reply)).toBeUndefined();
        // The credit and the link stay: the card still says where the image is.
        expect(JSON.stringify(reply.embeds[0])).toContain(`/images/${id}`);
      }
      expect(h.discord.violations).toEqual([]);
    },
  );

  it.each(cases)(
    'GIVEN a link posted in %s to a %s image THEN the unfurl follows the same rule',
    async (channel, rating, id) => {
      const posted = await h.discord.sendMessage({
        channel: channelOf(channel),
        content: `look ${h.booru.url}/images/${id}`,
      });
      const reply = await h.discord.waitFor(() => posted.replies()[0]);
      expect(reply.embeds).toHaveLength(1);
      if (allowed(channel, rating)) expect(picture(reply)).toBeDefined();
      else expect(picture(reply)).toBeUndefined();
      expect(reply.allowedMentions).toEqual({ parse: [], replied_user: false });
      expect(h.discord.violations).toEqual([]);
    },
  );

  it('GIVEN /search outside age-restricted channels THEN only safe images are searched', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'search', options: { query: 'explicit' }, channel: 'plain' })
      .finalReply();
    expect(reply.content).toMatch(/No images matched/);
    const q = h.booru.requests.filter((r) => r.path.endsWith('/search/images')).at(-1);
    expect(q?.query.get('q')).toBe('(explicit), safe');
  });
});
