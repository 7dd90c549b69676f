/**
 * /search pages in the pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and accented), over
 * the local board with 25 results of a hundred long credits and long sources each: the grid's heading,
 * footer and list, the picker, the Previous / Next / Random / Post publicly buttons and a card's "n of
 * total" are the catalogue's words, and each page stays within Discord's limits (80 characters a button,
 * 150 a placeholder, 100 an option's label and description, the Components V2 and embed budgets).
 */
import { ComponentType, type APIMessageComponent } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSearchPage } from '../../../commands/search/paging.js';
import type { SearchPage } from '../../../commands/search/codec.js';
import type { CommandContext } from '../../../commands/shared/context.js';
import type { MessageBody } from '../../../src/discord/contract.js';
import { NO_MENTIONS } from '../../../src/render/mentions.js';
import { messageLimitIssues, schemaIssues } from '../../fakes/discord/validate.js';
import { fakeInteraction, startCommandBed, type CommandBed } from '../../support/commands.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../../support/locales.js';

const QUERY = 'pseudo paging';
const RESULTS = 25;
const IS_COMPONENTS_V2 = 1 << 15;

let bed: CommandBed;
let context: CommandContext;
beforeAll(async () => {
  bed = await startCommandBed();
  for (let i = 0; i < RESULTS; i++) {
    bed.booru.addImage({
      tags: [
        'safe',
        QUERY,
        ...Array.from({ length: 100 }, (_, n) => `artist:a rather long artist name ${i}-${n}`),
      ],
      sourceUrls: [`https://a.example/${'s'.repeat(500)}/${i}`, 'https://b.example/'],
    });
  }
  context = await bed.context(fakeInteraction('search', { query: QUERY }, 'plain'));
});
afterAll(async () => {
  await bed.close();
});

function state(grid: boolean, page: number): SearchPage {
  return {
    site: context.view.site,
    token: 'tok',
    page,
    total: 1,
    sort: 'newest',
    seed: 1,
    owner: '200000000000000001',
    issuedAt: context.now(),
    private: true,
    grid,
  };
}

/** Every component of a message, nested ones included. */
function components(body: MessageBody): APIMessageComponent[] {
  const out: APIMessageComponent[] = [];
  const walk = (list: readonly unknown[]): void => {
    for (const item of list) {
      const component = item as APIMessageComponent;
      out.push(component);
      if ('components' in component && Array.isArray(component.components)) walk(component.components);
    }
  };
  walk(body.components ?? []);
  return out;
}

function expectWithinLimits(body: MessageBody): void {
  const api = body.componentsV2
    ? { flags: IS_COMPONENTS_V2, components: body.components, allowed_mentions: NO_MENTIONS }
    : {
        content: body.content,
        embeds: body.embeds,
        components: body.components,
        allowed_mentions: NO_MENTIONS,
      };
  expect([...schemaIssues('MessageCreateRequest', api), ...messageLimitIssues(api)]).toEqual([]);
  for (const component of components(body)) {
    if (component.type === ComponentType.Button && 'label' in component) {
      expect((component.label ?? '').length).toBeLessThanOrEqual(80);
    }
    if (component.type === ComponentType.StringSelect) {
      expect((component.placeholder ?? '').length).toBeLessThanOrEqual(150);
      for (const option of component.options) {
        expect(option.label.length).toBeLessThanOrEqual(100);
        expect((option.description ?? '').length).toBeLessThanOrEqual(100);
      }
    }
  }
}

async function page(grid: boolean, number: number, say = pseudoSay()): Promise<MessageBody> {
  const body = await renderSearchPage(QUERY, state(grid, number), context, { withButtons: true, say });
  if (body === undefined) throw new Error('no results');
  return body;
}

describe('/search pages in the pseudo-locale', () => {
  it('GIVEN a grid page of crowded results THEN heading, footer, picker and buttons are the pseudo-locale, within the limits', async () => {
    const body = await page(true, 2);
    expectWithinLimits(body);
    const texts = components(body).flatMap((c) => (c.type === ComponentType.TextDisplay ? [c.content] : []));
    const all = texts.join('\n').split('\n');
    const heading = all[0] ?? '';
    expect(heading).toMatch(PSEUDO_MARK);
    // The member's query and the page's numbers stay as they are.
    expect(heading).toContain(QUERY);
    expect(heading).toMatch(/11–20 .*25/);
    const footer = all.find((line) => line.startsWith('-# ')) ?? '';
    expect(footer).toMatch(PSEUDO_MARK);
    expect(footer).toMatch(/2 .*3/);
    for (const line of all.filter((l) => /^\d+\. /.test(l))) expect(line).toMatch(PSEUDO_MARK);
    const buttons = components(body).filter((c) => c.type === ComponentType.Button);
    expect(buttons).toHaveLength(4);
    for (const button of buttons) expect('label' in button ? button.label : '').toMatch(PSEUDO_MARK);
    const select = components(body).find((c) => c.type === ComponentType.StringSelect);
    expect(select?.type === ComponentType.StringSelect ? select.placeholder : '').toMatch(PSEUDO_MARK);
  });

  it('GIVEN a card page THEN the "n of total" in its footer and the buttons are the pseudo-locale, within the limits', async () => {
    const body = await page(false, 3);
    expectWithinLimits(body);
    const json = JSON.stringify(body);
    // The card's own footer carries "3 of 25" in the page's words (ours, not the card's).
    expect(json).toMatch(/3 [^"]*[·áéíóúŕšţ][^"]* 25/);
    // Previous, Next, Random and Post publicly: the page's own buttons (the card may add its own).
    const ours = components(body).filter(
      (c) =>
        c.type === ComponentType.Button &&
        'custom_id' in c &&
        /^srch:(prev|next|rand|pub):/.test(c.custom_id),
    );
    expect(ours).toHaveLength(4);
    for (const button of ours) expect('label' in button ? button.label : '').toMatch(PSEUDO_MARK);
  });
});

describe('/search pages in every shipped language', () => {
  it.each(shippedSays().map(({ locale, say }) => [locale, say] as const))(
    'GIVEN %s THEN a crowded grid page and a card page fit Discord’s limits',
    async (_locale, say) => {
      expectWithinLimits(await page(true, 1, say));
      expectWithinLimits(await page(false, 1, say));
    },
  );
});
