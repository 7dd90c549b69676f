/**
 * Board text is rendered on every card view, and a description is written by whoever uploaded the image:
 * a shape that costs more than linear time in its length stalls the bot for every server (a quadratic URL
 * trim once took 2 s for `https://a.bc/` and 11,987 `)`). Every pathological shape of the hostile-input
 * suite, at 12,000 characters, is rendered by the Markdown converter alone and as an image card's
 * description, cold (a fresh description memo) and warm (the memo already holds it). The worst shape of
 * each is reported, as the median of its runs.
 */
import { createDescriptionMemo } from '../src/render/description-memo.js';
import { imageCard } from '../src/render/image-card.js';
import { boardMarkdownToDiscord } from '../src/render/board-markdown.js';
import { knownSite } from '../src/philomena/sites.js';
import { PATHOLOGICAL_SHAPES } from '../test/hostile/arbitraries.js';
import { testImage } from '../test/support/images.js';
import type { Bench, BenchRow } from './report.js';

const LENGTH = 12_000;
const RUNS = 7;
const GOAL_MS = 50;
const WARM_GOAL_MS = 5;

const site = knownSite('derpibooru');

function imageWith(description: string, id: number) {
  return testImage(
    ['safe', 'artist:someone'],
    { id, description, source_urls: ['https://example.test/art'], spoilered: false },
    `https://derpicdn.net/img/${id}`,
  );
}

/** Median milliseconds of `RUNS` calls of `run`. */
function median(run: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

function worst(rows: readonly (readonly [string, number])[]): readonly [string, number] {
  return rows.reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0] as const);
}

export default (async (): Promise<readonly BenchRow[]> => {
  if (!site) throw new Error('derpibooru missing from KNOWN_SITES');
  const inputs = PATHOLOGICAL_SHAPES.map(({ name, make }) => [name, make(LENGTH)] as const);
  for (const [, text] of inputs) boardMarkdownToDiscord(text, site); // warm-up: let the JIT compile

  const markdown = inputs.map(
    ([name, text]) => [name, median(() => boardMarkdownToDiscord(text, site))] as const,
  );
  const cold = inputs.map(([name, text], i) => {
    const image = imageWith(text, i + 1);
    return [
      name,
      median(() => imageCard(image, { site, ageRestricted: true, descriptions: createDescriptionMemo() })),
    ] as const;
  });
  const warm = inputs.map(([name, text], i) => {
    const image = imageWith(text, i + 1);
    const descriptions = createDescriptionMemo();
    imageCard(image, { site, ageRestricted: true, descriptions });
    return [name, median(() => imageCard(image, { site, ageRestricted: true, descriptions }))] as const;
  });

  const row = (metric: string, [name, ms]: readonly [string, number], goal: number): BenchRow => ({
    group: 'render',
    metric: `${metric} (worst of ${inputs.length} shapes at ${LENGTH.toLocaleString('en-US')} characters: ${name}; median of ${RUNS})`,
    value: `${ms.toFixed(1)} ms`,
    goal: `< ${goal} ms`,
    ok: ms < goal,
  });
  return [
    row('board Markdown → Discord', worst(markdown), GOAL_MS),
    row('image card, description not yet rendered', worst(cold), GOAL_MS),
    row('image card seen again (description memo)', worst(warm), WARM_GOAL_MS),
  ];
}) satisfies Bench;
