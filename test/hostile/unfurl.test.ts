/**
 * Hostile chat messages through the real bot's unfurl: real links mixed with links fenced in code, inline
 * code, `<...>` and spoilers, look-alike hosts (of the local Philomena and of the known sites), and
 * hostile noise. The ground truth is known by construction, so each run checks: a reply only when a real,
 * unfenced link was posted, at most three cards, nothing that pings, and every image the board was asked
 * for was really linked on a site's real host.
 *
 * "No reply" is proven without sleeping: a sentinel message with a real link follows each run's message
 * in the same channel, and the message's own handler has finished (it returns before any await when it
 * finds no link) by the time the sentinel's reply arrives; a short grace then covers a buggy handler that
 * did start on a look-alike. Each run's server has its own preferred language (every shipped one, a
 * regional variant, one the bot does not ship): every card of the run is in it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedTranslator } from '../../src/i18n/index.js';
import { KNOWN_SITES } from '../../src/philomena/sites.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { IDS } from '../fakes/philomena/index.js';
import { hostileText, lookAlikeAuthority } from './arbitraries.js';
import { boardRequestsSince, mark, runProblems } from './bot-run.js';

const RUNS = 30;
/** Visible, approved images a real link may point at (IDS.safe is the sentinel's). */
const REAL_IDS = [
  IDS.suggestive,
  IDS.explicit,
  IDS.multiCredit,
  IDS.noArtist,
  IDS.manySources,
  IDS.hostileText,
  IDS.svg,
  IDS.animatedGif,
] as const;

let h: Harness;
beforeAll(async () => {
  // The per-site budget would only make the runs queue here.
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});

type Segment =
  | { readonly kind: 'real'; readonly id: number; readonly form: 'page' | 'bare' }
  | { readonly kind: 'fenced'; readonly id: number; readonly fence: number }
  | { readonly kind: 'look-alike'; readonly id: number; readonly authority: string; readonly scheme: string }
  | { readonly kind: 'noise'; readonly text: string };

const FENCES: readonly ((url: string) => string)[] = [
  (u) => `\`${u}\``,
  (u) => `\`\`${u}\`\``,
  (u) => `\`\`\`\n${u}\n\`\`\``,
  (u) => `\`\`\`md\nsee ${u} here\n\`\`\``,
  (u) => `<${u}>`,
  (u) => `||${u}||`,
  (u) => `|| ${u} ||`,
];

/** Whether the URL parser reads `authority` as one of the sites' own hosts (then it is no look-alike). */
function isRealAuthority(authority: string, localHost: string): boolean {
  const real = new Set([localHost, ...KNOWN_SITES.flatMap((site) => [...site.hosts, ...site.cdnHosts])]);
  try {
    const url = new URL(`https://${authority}/images/1`);
    return url.username === '' && url.password === '' && real.has(url.host);
  } catch {
    return false;
  }
}

/** Ids no image has: a request for one would be a look-alike or fenced link the bot took. */
const unknownId = fc.integer({ min: 500_000, max: 99_999_999 });

function segment(host: string): fc.Arbitrary<Segment> {
  return fc.oneof(
    fc.record({
      kind: fc.constant('real' as const),
      id: fc.constantFrom(...REAL_IDS),
      form: fc.constantFrom('page' as const, 'bare' as const),
    }),
    fc.record({
      kind: fc.constant('fenced' as const),
      id: unknownId,
      fence: fc.nat({ max: FENCES.length - 1 }),
    }),
    fc.record({
      kind: fc.constant('look-alike' as const),
      id: unknownId,
      authority: fc
        .oneof(
          lookAlikeAuthority(host),
          lookAlikeAuthority('derpibooru.org'),
          lookAlikeAuthority('derpicdn.net'),
        )
        .filter((authority) => !isRealAuthority(authority, host)),
      scheme: fc.constantFrom('http', 'https', 'HTTP'),
    }),
    fc.record({
      kind: fc.constant('noise' as const),
      // No fence characters and no scheme separator: noise must not open a fence or make a link.
      text: hostileText(5).map((text) => text.replace(/[`|<>]/g, '').replaceAll('://', ' ')),
    }),
  );
}

function render(segments: readonly Segment[], base: string): string {
  return segments
    .map((s) => {
      switch (s.kind) {
        case 'real':
          return s.form === 'page' ? `${base}/images/${s.id}` : `${base}/${s.id}`;
        case 'fenced':
          return (FENCES[s.fence] ?? FENCES[0]!)(`${base}/images/${s.id}`);
        case 'look-alike':
          return `${s.scheme}://${s.authority}/images/${s.id}`;
        case 'noise':
          return s.text;
      }
    })
    .join(' ')
    .concat(' ');
}

/** The server's preferred locale in each run: every shipped language, a regional variant, one not shipped. */
const serverLocale = fc.constantFrom('en-US', 'de', 'es-ES', 'es-419', 'fr', 'pl', 'pt-BR', 'ru', 'ja');

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('unfurl of hostile chat messages', () => {
  it('GIVEN real, fenced and look-alike links among hostile text THEN cards only for the real links, at most three, nothing pinged', async () => {
    const host = new URL(h.booru.url).host;
    let replied = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment(host), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('plain' as const, 'ageRestricted' as const),
        serverLocale,
        async (segments, channel, locale) => {
          // The server's language as Discord reports it now: GUILD_UPDATE reaches the bot on the same
          // gateway session, before the messages below.
          h.discord.updateGuild({ preferredLocale: locale });
          const content = render(segments, h.booru.url).slice(0, 2000);
          const realIds = [...new Set(segments.flatMap((s) => (s.kind === 'real' ? [s.id] : [])))];
          const from = mark(h);
          const posted = await h.discord.sendMessage({ channel, content: `@everyone ${content}` });
          const sentinel = await h.discord.sendMessage({
            channel,
            content: `${h.booru.url}/images/${IDS.safe}`,
          });
          const sentinelReply = await h.discord.waitFor(() => sentinel.replies()[0], 10_000);
          // Unfurls are for the whole channel: in the server's language, whoever posted the link.
          const credit = shippedTranslator().t(locale, 'card.field.credit');
          expect(sentinelReply.embeds[0]?.['fields']).toEqual(
            expect.arrayContaining([expect.objectContaining({ name: credit })]),
          );
          if (realIds.length > 0) await h.discord.waitFor(() => posted.replies()[0], 10_000);
          await settle(40);

          const replies = posted.replies();
          expect(replies).toHaveLength(realIds.length > 0 ? 1 : 0);
          const reply = replies[0];
          if (reply !== undefined) {
            replied += 1;
            expect(reply.embeds).toHaveLength(Math.min(3, realIds.length));
            for (const embed of reply.embeds) {
              expect(embed['fields']).toEqual(
                expect.arrayContaining([expect.objectContaining({ name: credit })]),
              );
            }
            const shown = reply.embeds.map((embed) => String(embed['url']));
            for (const [i, id] of realIds.slice(0, 3).entries())
              expect(shown[i]).toBe(`${h.booru.url}/images/${id}`);
            expect(reply.allowedMentions).toEqual({ parse: [], replied_user: false });
          }
          const allowed = new Set<number>([IDS.safe, ...realIds.slice(0, 3)]);
          for (const request of boardRequestsSince(h, from)) {
            const image = /^\/api\/v1\/json\/images\/(\d+)$/.exec(request.path);
            if (image) expect(allowed).toContain(Number(image[1]));
            else expect(request.path).toMatch(/^\/api\/v1\/json\/filters\//);
          }
          // A look-alike of a known site taken for it would have gone to the internet and been logged.
          const ownLines = h
            .logLines()
            .slice(from.log)
            .filter(
              (line) => line['messageId'] === posted.id && String(line['msg']).includes('unfurl failed'),
            );
          expect(ownLines).toEqual([]);
          expect(runProblems(h, from)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
    expect(replied, 'no run posted a real link').toBeGreaterThan(0);
  });
});
