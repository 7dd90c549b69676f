/**
 * Page cards follow the pictures (words about an adult picture are adult text): a gallery's title,
 * spoiler warning and description show only where its cover's card shows its picture in full, and a
 * comment's excerpt only where its image's card does, under the rating rule and the server's filter;
 * forum titles and post excerpts only in age-restricted channels. Against the local Philomena, through the
 * real client (a fresh one per case, so no cache carries one case's board into the next).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commentCards,
  galleryCards,
  searchCard,
  tagCardEmbed,
  topicCard,
} from '../../../commands/shared/page-cards.js';
import { createSiteDirectory } from '../../../commands/shared/site-directory.js';
import { makeView, type View } from '../../../commands/shared/view.js';
import { createLogger } from '../../../src/logger.js';
import { createPhilomenaClient } from '../../../src/philomena/client/index.js';
import { resolveSite, type Site } from '../../../src/philomena/sites.js';
import {
  COMMENT_IDS,
  FILTER_IDS,
  FORUM,
  GALLERY_IDS,
  IDS,
  POST_IDS,
  TAG_SLUGS,
  startFakePhilomena,
  type FakePhilomena,
} from '../../fakes/philomena/index.js';

const logger = createLogger({ level: 'silent' });
let booru: FakePhilomena;
let site: Site;

beforeAll(async () => {
  booru = await startFakePhilomena();
  site = resolveSite(booru.url);
});
afterAll(async () => {
  await booru.close();
});

function view(options: { ageRestricted?: boolean; spoilerChannel?: boolean; filterId?: number } = {}): View {
  const sites = createSiteDirectory({
    defaultSite: site,
    defaultFilterId: options.filterId ?? FILTER_IDS.everything,
  });
  return makeView({
    site,
    guildId: '1',
    ageRestricted: options.ageRestricted ?? false,
    ...(options.spoilerChannel === undefined ? {} : { spoilerChannel: options.spoilerChannel }),
    guildFilters: {},
    sites,
  });
}

const client = () => createPhilomenaClient({ site });

/** Makes the owner's gallery cover (and the safe comment's image), IDS.safe, carry other tags for one case. */
async function withSafeImageTagged<T>(tags: readonly string[], run: () => Promise<T>): Promise<T> {
  booru.updateImage(IDS.safe, { tags });
  try {
    return await run();
  } finally {
    booru.updateImage(IDS.safe, { tags: ['safe', 'artist:fake artist', 'twilight sparkle', 'book'] });
  }
}

describe('gallery cards', () => {
  it('GIVEN a gallery whose cover is safe, in a plain channel THEN its title and description show', async () => {
    const { embed, cover } = await galleryCards(client(), GALLERY_IDS.owner, view(), logger);
    expect(cover?.card.gate).toBe('full');
    expect(embed.title).toBe('Bot owner favourites');
    expect(embed.description).toContain('Images for **gallery** tests.');
  });

  it('GIVEN its cover re-rated explicit THEN in a plain channel no title or description, the gallery named by number; in an age-restricted one both', async () => {
    await withSafeImageTagged(['explicit', 'artist:fake artist'], async () => {
      const plain = await galleryCards(client(), GALLERY_IDS.owner, view(), logger);
      expect(plain.cover?.card.gate).toBe('rating-restricted');
      expect(plain.embed.title).toBe(`Gallery ${GALLERY_IDS.owner}`);
      expect(JSON.stringify(plain.embed)).not.toMatch(/Bot owner favourites|Images for/);
      expect(plain.embed.description).toMatch(/show only where its cover’s picture does/);
      const adult = await galleryCards(client(), GALLERY_IDS.owner, view({ ageRestricted: true }), logger);
      expect(adult.embed.title).toBe('Bot owner favourites');
      expect(adult.embed.description).toContain('Images for **gallery** tests.');
    });
  });

  it('GIVEN an age-restricted channel whose server filter spoilers the cover THEN the title follows the cover: not shown', async () => {
    await withSafeImageTagged(['questionable', 'artist:fake artist'], async () => {
      const found = await galleryCards(
        client(),
        GALLERY_IDS.owner,
        view({ ageRestricted: true, filterId: FILTER_IDS.default }),
        logger,
      );
      expect(found.cover?.card.gate).toBe('spoilered');
      expect(found.embed.title).toBe(`Gallery ${GALLERY_IDS.owner}`);
      expect(JSON.stringify(found.embed)).not.toContain('Bot owner favourites');
    });
  });

  it('GIVEN a gallery whose cover cannot be read THEN no title (fail closed)', async () => {
    const found = await galleryCards(
      client(),
      GALLERY_IDS.fixtureFirst,
      view({ ageRestricted: true }),
      logger,
    );
    expect(found.cover).toBeUndefined();
    expect(found.embed.title).toBe(`Gallery ${GALLERY_IDS.fixtureFirst}`);
    expect(found.embed.description).toMatch(/^by \*\*/);
  });

  it('GIVEN a spoiler channel THEN the words as in a plain channel, and the cover’s card has no bare picture', async () => {
    const found = await galleryCards(client(), GALLERY_IDS.owner, view({ spoilerChannel: true }), logger);
    expect(found.embed.title).toBe('Bot owner favourites');
    expect(found.cover?.card.embed.image).toBeUndefined();
    expect(found.cover?.card.media?.spoiler).toBe(true);
  });
});

describe('comment cards', () => {
  it('GIVEN a comment on a safe image THEN its excerpt shows', async () => {
    const found = await commentCards(client(), COMMENT_IDS.onSafe, view(), logger);
    expect(found.embeds[0]?.description).toContain('Lovely picture!');
  });

  it('GIVEN a comment on an image the server’s filter spoilers, in an age-restricted channel THEN no excerpt', async () => {
    await withSafeImageTagged(['questionable', 'artist:fake artist'], async () => {
      const spoilered = await commentCards(
        client(),
        COMMENT_IDS.onSafe,
        view({ ageRestricted: true, filterId: FILTER_IDS.default }),
        logger,
      );
      expect(spoilered.image.gate).toBe('spoilered');
      expect(JSON.stringify(spoilered.embeds)).not.toContain('Lovely picture!');
      expect(spoilered.embeds[0]?.description).toContain('Not shown here');
      // The same channel under a filter that spoilers nothing: the excerpt is back.
      const everything = await commentCards(
        client(),
        COMMENT_IDS.onSafe,
        view({ ageRestricted: true }),
        logger,
      );
      expect(everything.embeds[0]?.description).toContain('Lovely picture!');
    });
  });

  it('GIVEN a comment on a suggestive image in a plain channel THEN no excerpt', async () => {
    const found = await commentCards(client(), COMMENT_IDS.onSuggestive, view(), logger);
    expect(JSON.stringify(found.embeds)).not.toContain('Spicy one');
  });
});

describe('forum cards', () => {
  const topicLink = { forum: FORUM.dis, topic: FORUM.botTopic, postId: undefined };
  const postLink = { ...topicLink, postId: POST_IDS.botFirst };

  it.each([
    ['a plain channel', {}],
    ['a spoiler channel', { spoilerChannel: true }],
  ])(
    'GIVEN a topic and a post in %s THEN the forum’s name, the author, the figures and the link: no title, no excerpt',
    async (_what, options) => {
      const topic = await topicCard(client(), topicLink, view(options));
      expect(topic.title).toMatch(/^A topic in .+/);
      expect(JSON.stringify(topic)).not.toMatch(/Bot testing thread/);
      expect(topic.description).toMatch(/^by \*\*.+\*\* · 30 posts/);
      expect(topic.url).toContain(`/forums/${FORUM.dis}/topics/${FORUM.botTopic}`);
      const post = await topicCard(client(), postLink, view(options));
      expect(post.title).toMatch(/^A post in .+/);
      expect(JSON.stringify(post)).not.toMatch(/Post number 1 in the bot thread|Bot testing thread/);
      expect(post.description).toMatch(/shown only in age-restricted channels/);
      expect(post.url).toContain(`post_id=${POST_IDS.botFirst}`);
    },
  );

  it('GIVEN the same in an age-restricted channel THEN the title and the excerpt', async () => {
    const topic = await topicCard(client(), topicLink, view({ ageRestricted: true }));
    expect(topic.title).toContain('Bot testing thread');
    const post = await topicCard(client(), postLink, view({ ageRestricted: true }));
    expect(post.description).toContain('Post number 1 in the bot thread');
  });
});

describe('tag cards', () => {
  it('GIVEN a spoiler channel THEN the tag card carries no picture', async () => {
    const plain = await tagCardEmbed(client(), TAG_SLUGS.twilightSparkle, view(), logger);
    const spoiler = await tagCardEmbed(
      client(),
      TAG_SLUGS.twilightSparkle,
      view({ spoilerChannel: true }),
      logger,
    );
    // The plain channel's card pictures its safe example; the spoiler channel's links it instead.
    expect(plain.image?.url).toBeDefined();
    expect(spoiler.image).toBeUndefined();
    expect(spoiler.thumbnail).toBeUndefined();
    expect(JSON.stringify(spoiler.fields)).toMatch(/spoiler channel/);
  });
});

describe('page cards under the community’s rules', () => {
  function ruled(): View {
    const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: FILTER_IDS.everything });
    return makeView({
      site,
      guildId: '1',
      ageRestricted: false,
      guildFilters: {},
      sites,
      layers: { server: { spoilered: ['book'] }, memberHidden: ['zq private taste'] },
    });
  }

  it('GIVEN a search link and a member’s own hidden tag THEN the board query leaves it out AND the public line does not name it', async () => {
    const from = booru.requests.length;
    const found = await searchCard(client(), 'twilight sparkle', ruled(), logger);
    const sent = booru.requests.slice(from).find((r) => r.path.endsWith('/search/images'));
    expect(sent?.query.get('q')).toContain('-"zq private taste"');
    expect(found.line).not.toContain('private');
    expect(decodeURIComponent(found.line)).toContain('(twilight sparkle), safe');
  });

  it('GIVEN a gallery whose cover a spoiler rule covers THEN its title and description stay out, as for a spoilered cover', async () => {
    const { embed, cover } = await galleryCards(client(), GALLERY_IDS.owner, ruled(), logger);
    expect(cover?.card.gate).toBe('full');
    expect(cover?.card.ruleNotice).toMatch(/Behind a spoiler/);
    expect(embed.title).toBe(`Gallery ${GALLERY_IDS.owner}`);
    expect(JSON.stringify(embed)).not.toMatch(/Bot owner favourites|Images for/);
  });
});
