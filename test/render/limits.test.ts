import type { APIEmbed } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  EMBED_AUTHOR_NAME_MAX,
  EMBED_DESCRIPTION_MAX,
  EMBED_FIELD_NAME_MAX,
  EMBED_FIELD_VALUE_MAX,
  EMBED_FIELDS_MAX,
  EMBED_FOOTER_MAX,
  EMBED_TITLE_MAX,
  EMBEDS_PER_MESSAGE_MAX,
  EMBEDS_TOTAL_MAX,
  embedLength,
  fitEmbeds,
} from '../../src/render/limits.js';

/** Every Discord limit of one message's embeds; returns the broken ones. */
function limitViolations(embeds: readonly APIEmbed[]): string[] {
  const broken: string[] = [];
  if (embeds.length > EMBEDS_PER_MESSAGE_MAX) broken.push('embed count');
  let total = 0;
  embeds.forEach((embed, i) => {
    total += embedLength(embed);
    if ((embed.title?.length ?? 0) > EMBED_TITLE_MAX) broken.push(`${i}.title`);
    if ((embed.description?.length ?? 0) > EMBED_DESCRIPTION_MAX) broken.push(`${i}.description`);
    if ((embed.footer?.text.length ?? 0) > EMBED_FOOTER_MAX) broken.push(`${i}.footer`);
    if ((embed.author?.name.length ?? 0) > EMBED_AUTHOR_NAME_MAX) broken.push(`${i}.author`);
    const fields = embed.fields ?? [];
    if (fields.length > EMBED_FIELDS_MAX) broken.push(`${i}.fields`);
    fields.forEach((field, j) => {
      if (field.name.length === 0 || field.name.length > EMBED_FIELD_NAME_MAX)
        broken.push(`${i}.fields.${j}.name`);
      if (field.value.length === 0 || field.value.length > EMBED_FIELD_VALUE_MAX)
        broken.push(`${i}.fields.${j}.value`);
    });
  });
  if (total > EMBEDS_TOTAL_MAX) broken.push(`total ${total}`);
  return broken;
}

const big = (n: number, char = 'x'): string => char.repeat(n);

function huge(): APIEmbed {
  return {
    title: big(400),
    description: big(5000, 'd'),
    footer: { text: big(3000, 'f') },
    author: { name: big(300, 'a') },
    fields: Array.from({ length: 40 }, (_, i) => ({ name: `${i}${big(300, 'n')}`, value: big(2000, 'v') })),
  };
}

describe('fitEmbeds', () => {
  it.each([
    ['one huge embed', [huge()]],
    ['ten huge embeds', Array.from({ length: 10 }, huge)],
    ['twelve small embeds', Array.from({ length: 12 }, () => ({ title: 'x', description: 'y' }))],
    ['many titles only', Array.from({ length: 10 }, () => ({ title: big(256) }))],
    ['empty fields', [{ fields: [{ name: '', value: '' }] }]],
    ['multi-embed at the total', Array.from({ length: 3 }, () => ({ description: big(2500) }))],
  ])('GIVEN %s THEN every limit holds', (_name, embeds: APIEmbed[]) => {
    const fitted = fitEmbeds(embeds);
    expect(limitViolations(fitted)).toEqual([]);
    expect(fitted.length).toBeGreaterThan(0);
  });

  it('GIVEN embeds within the limits THEN they come back unchanged', () => {
    const embeds: APIEmbed[] = [
      {
        title: 'a',
        description: 'b',
        fields: [{ name: 'c', value: 'd', inline: true }],
        footer: { text: 'e' },
      },
      { title: 'f', image: { url: 'https://cdn.test/a.png' } },
    ];
    expect(fitEmbeds(embeds)).toEqual(embeds);
  });

  it('GIVEN a too long text THEN it ends with an ellipsis', () => {
    const [embed] = fitEmbeds([{ title: big(300), description: big(5000) }]);
    expect(embed?.title).toMatch(/…$/);
    expect(embed?.title?.length).toBe(EMBED_TITLE_MAX);
    expect(embed?.description).toMatch(/…$/);
  });

  it('GIVEN the total is too long THEN an embed within its fair share is untouched and the long one gives way', () => {
    const first: APIEmbed = { title: 'first', description: big(1000, 'a') };
    const second: APIEmbed = { title: 'second', description: big(5500, 'b') };
    const [a, b] = fitEmbeds([first, second]);
    expect(a).toEqual(first);
    expect(b?.title).toBe('second');
    expect((b?.description ?? '').length).toBeLessThan(5500);
    expect(embedLength(a ?? {}) + embedLength(b ?? {})).toBeLessThanOrEqual(EMBEDS_TOTAL_MAX);
  });

  it('GIVEN three heavy image cards in one message THEN each keeps its title, credit and every source field', () => {
    const card = (id: number): APIEmbed => ({
      title: `#${id}`,
      url: `https://derpibooru.org/images/${id}`,
      description: big(1800, 'd'),
      fields: [
        { name: 'Credit', value: `**Artist:** artist ${id} ${big(300, 'c')}` },
        { name: 'Sources', value: `<https://example.com/${id}>\n${big(900, 's')}` },
        { name: 'Sources (continued)', value: big(1000, 's') },
        { name: 'Rating', value: 'safe', inline: true },
        { name: 'Score', value: '10', inline: true },
        { name: 'Tags (300)', value: big(1020, 't') },
      ],
      footer: { text: 'Derpibooru' },
    });
    const cards = [card(1), card(2), card(3)];
    expect(cards.reduce((sum, c) => sum + embedLength(c), 0)).toBeGreaterThan(EMBEDS_TOTAL_MAX * 2);
    const fitted = fitEmbeds(cards);
    expect(fitted).toHaveLength(3);
    expect(fitted.reduce((sum, c) => sum + embedLength(c), 0)).toBeLessThanOrEqual(EMBEDS_TOTAL_MAX);
    for (const [i, embed] of fitted.entries()) {
      expect(embed.title).toBe(`#${i + 1}`);
      expect(embed.url).toBe(`https://derpibooru.org/images/${i + 1}`);
      const names = (embed.fields ?? []).map((field) => field.name);
      expect(names.slice(0, 3)).toEqual(['Credit', 'Sources', 'Sources (continued)']);
      expect(embed.fields?.[0]?.value).toContain(`artist ${i + 1}`);
      expect(embed.fields?.[1]?.value).toContain(`<https://example.com/${i + 1}>`);
    }
  });

  it('GIVEN bad or overlong URLs THEN they are dropped instead of failing the message', () => {
    const [embed] = fitEmbeds([
      {
        url: 'javascript:alert(1)',
        image: { url: `https://cdn.test/${big(3000)}` },
        thumbnail: { url: 'data:image/png;base64,xx' },
        title: 't',
      },
    ]);
    expect(embed).toEqual({ title: 't' });
  });
});
