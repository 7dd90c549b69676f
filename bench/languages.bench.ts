/**
 * What a language costs a card (issue 21): the same cards rendered in every shipped language, against
 * English. A card's own words come from the catalogues (src/i18n): each is a message looked up and
 * formatted with ICU at render time, compiled once per language and key. The goal: a card in any
 * language costs no more than in English beyond noise.
 *
 * The languages are measured interleaved (one card of each in turn, many rounds), so the machine's drift
 * over the run falls on all of them alike; each row is p50 / p99 and the p50 against English's. The cards:
 * a full card (80 tags, two sources, a description), a card the rating rule restricts (its notice and
 * rating in words), and a card a server's spoilered tag pictures behind a spoiler (the rule's notice),
 * each through `cardMessage` as every feature sends one.
 */
import { cardContext, cardMessage } from '../commands/shared/show-image.js';
import { createSiteDirectory } from '../commands/shared/site-directory.js';
import { makeView, type View } from '../commands/shared/view.js';
import { shippedTranslator } from '../src/i18n/index.js';
import { knownSite, type Site } from '../src/philomena/sites.js';
import { createDescriptionMemo } from '../src/render/description-memo.js';
import { imageCard } from '../src/render/image-card.js';
import { testImage } from '../test/support/images.js';
import { percentile, type Bench, type BenchRow } from './report.js';

const GROUP = 'languages';
const ROUNDS = 6_000;
const WARM_UP = 1_000;
const IMAGE_TAGS = 80;
/** Beyond this, a language's p50 is worth a look (the noise of this machine between identical runs). */
const NOISE = 1.15;

function imageWith(id: number, rating: string, extra: readonly string[] = []) {
  const tags = [
    rating,
    'artist:someone',
    ...Array.from({ length: IMAGE_TAGS - 2 - extra.length }, (_, i) => `image tag ${i}`),
    ...extra,
  ];
  return testImage(
    tags,
    {
      id,
      description: 'A *pony* by [url=https://example.test/a]someone[/url], with **words** about the picture.',
      source_urls: ['https://example.test/art', 'https://example.test/art/2'],
      spoilered: false,
    },
    `https://derpicdn.net/img/${id}`,
  );
}

const us = (v: number): string => (v < 10 ? v.toFixed(1) : v.toFixed(0));

export default (async (): Promise<readonly BenchRow[]> => {
  const site: Site | undefined = knownSite('derpibooru');
  if (!site) throw new Error('derpibooru missing from KNOWN_SITES');
  const sites = createSiteDirectory({ defaultSite: site, defaultFilterId: undefined });
  const locales = shippedTranslator().locales;
  const viewIn = (locale: string): View =>
    makeView({
      site,
      guildId: '1',
      ageRestricted: false,
      guildFilters: {},
      sites,
      locale,
      layers: { channelId: '2', server: { spoilered: ['server spoilered'] } },
    });
  const descriptions = createDescriptionMemo();
  const cases = [
    { name: 'full card (80 tags, 2 sources, a description)', image: imageWith(1, 'safe') },
    { name: 'rating-restricted card', image: imageWith(2, 'explicit') },
    { name: 'spoilered by a server tag', image: imageWith(3, 'safe', ['server spoilered']) },
  ];
  const rows: BenchRow[] = [];
  for (const { name, image } of cases) {
    const views = locales.map(viewIn);
    const render = (view: View) =>
      cardMessage(imageCard(image, { ...cardContext(view, undefined), descriptions }), site, image.id);
    // Each language's card must differ from English's where it has its own words, or the row means nothing.
    const english = JSON.stringify(render(views[0] as View));
    const same = views.slice(1).filter((view) => JSON.stringify(render(view)) === english);
    for (let i = 0; i < WARM_UP; i += 1) for (const view of views) render(view);
    const times = views.map((): number[] => []);
    for (let i = 0; i < ROUNDS; i += 1) {
      views.forEach((view, index) => {
        const started = performance.now();
        render(view);
        times[index]?.push((performance.now() - started) * 1000);
      });
    }
    const sorted = times.map((list) => list.sort((a, b) => a - b));
    const englishP50 = percentile(sorted[0] ?? [], 50);
    locales.forEach((locale, index) => {
      const list = sorted[index] ?? [];
      const ratio = percentile(list, 50) / englishP50;
      const untranslated = same.some((view) => view.locale === locale) ? ' (same words as English)' : '';
      rows.push({
        group: GROUP,
        metric: `${name}, ${locale}${untranslated}: p50 / p99 (${ROUNDS.toLocaleString('en-US')} cards), p50 against en-US`,
        value: `${us(percentile(list, 50))} µs / ${us(percentile(list, 99))} µs, ${ratio.toFixed(2)}×`,
        goal: `≤ ${NOISE}× en-US`,
        ok: ratio <= NOISE,
      });
    });
  }
  return rows;
}) satisfies Bench;
