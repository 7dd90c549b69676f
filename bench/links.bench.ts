/**
 * The link recogniser runs on every chat message the bot can see, so it must cost next to nothing on
 * ordinary chat. 100,000 messages of 20-300 characters: 10% carry one image link (assorted forms and
 * sites, with chat punctuation around it), 3% a link to some other site, the rest plain text.
 */
import { createLinkRecogniser, createPageLinkRecogniser } from '../src/philomena/links.js';
import { imageReferences } from '../commands/unfurl/references.js';
import { KNOWN_SITES } from '../src/philomena/sites.js';
import type { Bench, BenchRow } from './report.js';
import { createSeededRandom } from '../test/support/random.js';

const MESSAGES = 100_000;
const RUNS = 5;
const GOAL = 200_000;

const WORDS = (
  'the pony art is so cute lol did you see this one new episode tonight who drew that i love her mane ' +
  'colours wow amazing haha ok sure maybe later brb gonna check the booru for more of this artist pls'
).split(' ');

const IMAGE_LINK_FORMS: readonly ((id: number) => string)[] = [
  (id) => `https://derpibooru.org/images/${id}`,
  (id) => `https://derpibooru.org/${id}`,
  (id) => `http://www.derpibooru.org/images/${id}?q=safe`,
  (id) => `https://trixiebooru.org/images/${id}#comments`,
  (id) => `https://derpicdn.net/img/2024/3/14/${id}/medium.png`,
  (id) => `https://derpicdn.net/img/view/2024/3/14/${id}.gif`,
  (id) => `https://derpicdn.net/img/view/2024/3/14/${id}__safe_artist-colon-foo_pony.png`,
  (id) => `https://derpicdn.net/img/download/2024/3/14/${id}__safe.jpg`,
  (id) => `https://furbooru.org/images/${id}`,
  (id) => `https://furrycdn.org/img/2023/1/2/${id}/thumb.jpg`,
  (id) => `https://tantabus.ai/images/${id}`,
  (id) => `https://cdn.ponybooru.org/img/view/2022/5/5/${id}.png`,
  (id) => `https://manebooru.art/images/${id}`,
];
const WRAPPERS: readonly ((link: string) => string)[] = [
  (l) => l,
  (l) => `(${l})`,
  (l) => `${l}.`,
  (l) => `<${l}>`,
  (l) => `${l},`,
];
const OTHER_LINKS = [
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://twitter.com/someone/status/1234567890',
  'https://evil.test/derpibooru.org/images/1',
];

function createMessages(): { messages: string[]; expectedLinks: number } {
  const random = createSeededRandom(20240314);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const words = (length: number): string => {
    let text = '';
    while (text.length < length) text += `${text === '' ? '' : ' '}${pick(WORDS)}`;
    return text;
  };
  const messages: string[] = [];
  let expectedLinks = 0;
  for (let i = 0; i < MESSAGES; i += 1) {
    const length = 20 + Math.floor(random() * 281);
    const roll = random();
    let insert = '';
    if (roll < 0.1) {
      insert = pick(WRAPPERS)(pick(IMAGE_LINK_FORMS)(i + 1));
      expectedLinks += 1;
    } else if (roll < 0.13) {
      insert = pick(OTHER_LINKS);
    }
    const filler = words(Math.max(0, length - insert.length));
    const cut = Math.floor(random() * filler.length);
    messages.push(insert === '' ? filler : `${filler.slice(0, cut)} ${insert} ${filler.slice(cut)}`.trim());
  }
  return { messages, expectedLinks };
}

export default (async (): Promise<readonly BenchRow[]> => {
  const recognise = createLinkRecogniser(KNOWN_SITES);
  const { messages, expectedLinks } = createMessages();
  const pass = (): number => {
    let links = 0;
    for (const message of messages) links += recognise(message).length;
    return links;
  };

  // What the unfurler runs on each message: image links, tag and search pages, `>>123` references.
  const recognisePages = createPageLinkRecogniser(KNOWN_SITES);
  const site = KNOWN_SITES[0];
  const passAll = (): void => {
    for (const message of messages) {
      recognise(message);
      recognisePages(message);
      if (site !== undefined) imageReferences(message, site);
    }
  };
  passAll();
  const allRates: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    passAll();
    allRates.push(MESSAGES / ((performance.now() - started) / 1000));
  }
  allRates.sort((a, b) => a - b);
  const allMedian = allRates[Math.floor(allRates.length / 2)] ?? 0;

  pass(); // warm-up: let the JIT compile the recogniser and the regexes
  const rates: number[] = [];
  let found = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    found = pass();
    const seconds = (performance.now() - started) / 1000;
    rates.push(MESSAGES / seconds);
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)] ?? 0;
  const averageLength = messages.reduce((sum, m) => sum + m.length, 0) / messages.length;

  return [
    {
      group: 'links',
      metric: `recognised messages per second (${MESSAGES.toLocaleString('en-US')} chat messages, avg ${averageLength.toFixed(0)} chars, 10% with an image link; median of ${RUNS})`,
      value: `${Math.round(median).toLocaleString('en-US')} msg/s`,
      goal: `> ${GOAL.toLocaleString('en-US')} msg/s`,
      ok: median > GOAL,
    },
    {
      group: 'links',
      metric:
        'the same messages through every recogniser the unfurler runs (image links, tag and search pages, >>123 references)',
      value: `${Math.round(allMedian).toLocaleString('en-US')} msg/s`,
      goal: '> 1,000,000 msg/s',
      ok: allMedian > 1_000_000,
    },
    {
      group: 'links',
      metric: 'image links found (one per link message; other sites and look-alikes ignored)',
      value: found.toLocaleString('en-US'),
      goal: expectedLinks.toLocaleString('en-US'),
      ok: found === expectedLinks,
    },
  ];
}) satisfies Bench;
