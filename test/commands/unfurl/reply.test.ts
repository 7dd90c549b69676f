import { ComponentType, type APIEmbed } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { revealButton } from '../../../commands/shared/show-image.js';
import { embedLength, EMBEDS_TOTAL_MAX } from '../../../src/render/index.js';
import { unfurlReplyBody, type UnfurlCard } from '../../../commands/unfurl/unfurl.js';
import { knownSite } from '../../../src/philomena/sites.js';

const found = knownSite('derpibooru');
if (found === undefined) throw new Error('derpibooru is a known site');
const site = found;

/** A card whose size cannot shrink below ~5000 characters: 20 core fields with long names. */
function unshrinkable(id: number): APIEmbed {
  return {
    title: `#${id}`,
    url: `https://derpibooru.org/images/${id}`,
    fields: [
      ...Array.from({ length: 20 }, (_, i) => ({ name: `${'n'.repeat(240)} ${id}-${i}`, value: 'v' })),
      { name: 'Rating', value: 'explicit', inline: true },
    ],
  };
}

function small(id: number): APIEmbed {
  return { title: `#${id}`, url: `https://derpibooru.org/images/${id}`, description: 'a picture' };
}

function card(embed: APIEmbed, id: number, revealable: boolean): UnfurlCard {
  return { embed, reveal: revealable ? revealButton(site, id, `Reveal ${id}`) : undefined };
}

function buttonLabels(body: ReturnType<typeof unfurlReplyBody>): (string | undefined)[] {
  return body.components.flatMap((row) =>
    row.components.map((button) =>
      button.type === ComponentType.Button && 'label' in button ? button.label : undefined,
    ),
  );
}

describe('unfurl reply body', () => {
  it('GIVEN cards too big for one message THEN only the kept cards have Reveal buttons', () => {
    const body = unfurlReplyBody([
      card(unshrinkable(1), 1, true),
      card(unshrinkable(2), 2, true),
      card(unshrinkable(3), 3, true),
    ]);
    expect(body.embeds.length).toBeLessThan(3);
    expect(body.dropped).toBe(3 - body.embeds.length);
    expect(body.embeds.reduce((sum, embed) => sum + embedLength(embed), 0)).toBeLessThanOrEqual(
      EMBEDS_TOTAL_MAX,
    );
    const kept = body.embeds.map((embed) => embed.url?.split('/').pop());
    expect(buttonLabels(body)).toEqual(kept.map((id) => `Reveal ${id}`));
  });

  it('GIVEN cards that fit THEN every card is kept with its own button, in order', () => {
    const body = unfurlReplyBody([
      card(small(1), 1, true),
      card(small(2), 2, false),
      card(small(3), 3, true),
    ]);
    expect(body.embeds.map((embed) => embed.title)).toEqual(['#1', '#2', '#3']);
    expect(body.dropped).toBe(0);
    expect(buttonLabels(body)).toEqual(['Reveal 1', 'Reveal 3']);
  });

  it('GIVEN no revealable card THEN no button row', () => {
    expect(unfurlReplyBody([card(small(1), 1, false)]).components).toEqual([]);
  });

  it('GIVEN ten revealable cards (Show card in a spoiler channel) THEN five buttons a row, every card’s button kept', () => {
    const body = unfurlReplyBody(Array.from({ length: 10 }, (_, i) => card(small(i + 1), i + 1, true)));
    expect(body.components.map((row) => row.components.length)).toEqual([5, 5]);
    expect(buttonLabels(body)).toEqual(Array.from({ length: 10 }, (_, i) => `Reveal ${i + 1}`));
  });

  it('GIVEN two cards of one image THEN one button for it (custom ids must differ)', () => {
    const body = unfurlReplyBody([card(small(1), 1, true), card(small(1), 1, true), card(small(2), 2, true)]);
    expect(buttonLabels(body)).toEqual(['Reveal 1', 'Reveal 2']);
  });
});
