/**
 * The image card in every language: every gate (full, processing, spoilered by the filter and by a rule,
 * hidden by each layer's rule, rating-restricted, no rating tag, merged, deleted, a spoiler channel's embed
 * and V2 card), in both forms (embed and Components V2) with their buttons. In the pseudo-locale
 * (src/i18n/pseudo.ts: English about 40% longer and accented) every label and notice we write comes from
 * the catalogue; in it and in every shipped language the card keeps Discord's limits and keeps every credit
 * name and every source URL whole (longer labels never cost a credit or a source). German cards read German.
 */
import type { APIEmbed, APIMessageTopLevelComponent } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { cardMessage, V2_ANSWER_TEXT_MAX } from '../../commands/shared/show-image.js';
import type { MessageBody } from '../../src/discord/contract.js';
import { loadCatalogues, sayEnglish, type Say } from '../../src/i18n/index.js';
import { hiddenImageSchema, type Image } from '../../src/philomena/schemas.js';
import { knownSite, type Site } from '../../src/philomena/sites.js';
import { countComponents, imageCardV2, v2TextLength } from '../../src/render/card-v2.js';
import type { ContentRules, RuleLayer } from '../../src/render/content-rules.js';
import {
  imageCard,
  PROCESSING_NOTICE,
  SPOILER_CHANNEL_NOTICE,
  SPOILERED_PICTURE_NOTICE,
  type CardContext,
  type ImageCard,
} from '../../src/render/image-card.js';
import { NO_MENTIONS } from '../../src/render/mentions.js';
import { messageLimitIssues, schemaIssues } from '../fakes/discord/validate.js';
import { embedLimitProblems, walkStrings } from '../hostile/invariants.js';
import { testImage } from '../support/images.js';
import { PSEUDO_MARK, pseudoSay, shippedSays } from '../support/locales.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site: Site = derpi;

/** Many credits over several roles, with long names: all must stay, whatever the labels cost. */
const CREDITS = [
  ...Array.from({ length: 4 }, (_, i) => `artist:painter number ${i}`),
  'colorist:the colourist',
  ...Array.from({ length: 3 }, (_, i) => `editor:editor ${i}`),
  'photographer:lens',
  'commissioner:patron',
];
/** Twenty sources of about 70 characters: two embed fields, most of a V2 card's text. */
const SOURCES = Array.from(
  { length: 20 },
  (_, i) => `https://www.deviantart.com/some-artist-name/art/a-long-title-of-a-piece-${i}`,
);
const TAGS = Array.from({ length: 60 }, (_, i) => `some fairly long plain tag ${i}`);
const filter = { name: 'Default filter', spoileredTagIds: [12], hiddenTagIds: [] as number[] };
/** The tag of id 12 of a `safe` image (ids are positions): the rating, the credits, then the plain tags. */
const spoileredTag = TAGS[12 - 1 - CREDITS.length];

function image(ratings: readonly string[], fields: Record<string, unknown> = {}): Image {
  const tags = [...ratings, ...CREDITS, ...TAGS, 'gore'];
  return testImage(tags, {
    id: 42,
    spoilered: false,
    description: 'A calm **picture** of a hill.',
    source_urls: SOURCES,
    score: 12345,
    upvotes: 13000,
    downvotes: 655,
    faves: 2000,
    comment_count: 31,
    width: 4096,
    height: 2160,
    ...fields,
  });
}

const rules = (layer: RuleLayer, kind: 'hidden' | 'spoilered'): ContentRules => {
  const rule = [{ tag: 'gore', ratings: 'any' as const, layer }];
  return kind === 'hidden' ? { hidden: rule } : { hidden: [], spoilered: rule };
};

interface Gate {
  readonly name: string;
  readonly gate: ImageCard['gate'];
  readonly image: Image;
  readonly ctx: Omit<CardContext, 'site' | 'say'>;
  /** Whether the card must carry the credit and the sources (every card but the stubs). */
  readonly credited: boolean;
}

const plain = { ageRestricted: false, filter };
const GATES: readonly Gate[] = [
  { name: 'full', gate: 'full', image: image(['safe']), ctx: plain, credited: true },
  {
    name: 'processing',
    gate: 'processing',
    image: image(['safe'], { thumbnails_generated: false }),
    ctx: plain,
    credited: true,
  },
  {
    name: 'spoilered by the filter',
    gate: 'spoilered',
    image: image(['safe'], { spoilered: true }),
    ctx: plain,
    credited: true,
  },
  {
    name: 'spoilered by a server rule',
    gate: 'full',
    image: image(['safe']),
    ctx: { ...plain, rules: rules('server', 'spoilered') },
    credited: true,
  },
  ...(['floor', 'server', 'channel', 'member'] as const).map((layer): Gate => ({
    name: `hidden by a ${layer} rule`,
    gate: 'rule-hidden',
    image: image(['safe']),
    ctx: { ...plain, rules: rules(layer, 'hidden') },
    credited: true,
  })),
  {
    name: 'rating-restricted',
    gate: 'rating-restricted',
    image: image(['explicit']),
    ctx: plain,
    credited: true,
  },
  { name: 'no rating tag', gate: 'rating-restricted', image: image([]), ctx: plain, credited: true },
  {
    name: 'spoiler channel',
    gate: 'full',
    image: image(['safe']),
    ctx: { ...plain, spoilerChannel: true },
    credited: true,
  },
  {
    name: 'merged',
    gate: 'merged',
    image: hiddenImageSchema.parse({ id: 42, hidden_from_users: true, duplicate_of: 77 }),
    ctx: plain,
    credited: false,
  },
  {
    name: 'deleted',
    gate: 'deleted',
    image: hiddenImageSchema.parse({ id: 42, hidden_from_users: true, deletion_reason: 'Rule #2' }),
    ctx: plain,
    credited: false,
  },
];

function cardIn(gate: Gate, say: Say): ImageCard {
  const card = imageCard(gate.image, { site, ...gate.ctx, say });
  expect(card.gate, gate.name).toBe(gate.gate);
  return card;
}

/** Both forms of the card's message, as cardMessage makes them (V2 forced for the second). */
function messages(card: ImageCard): { embed: MessageBody; v2: MessageBody } {
  return {
    embed: cardMessage(card, site, 42, { form: 'embed' }),
    v2: cardMessage(card, site, 42, { form: 'v2' }),
  };
}

/** What Discord would refuse of the body, as the local Discord checks it (schema and documented limits). */
function discordProblems(body: MessageBody): string[] {
  const wire = body.componentsV2
    ? { flags: 1 << 15, components: body.components, allowed_mentions: NO_MENTIONS }
    : { ...body, allowed_mentions: NO_MENTIONS };
  const problems = [...schemaIssues('MessageCreateRequest', wire), ...messageLimitIssues(wire)].map((issue) =>
    JSON.stringify(issue),
  );
  if (body.componentsV2) {
    if (v2TextLength(body.components) > 4000) problems.push(`${v2TextLength(body.components)} characters`);
    if (countComponents(body.components) > 40)
      problems.push(`${countComponents(body.components)} components`);
  } else {
    problems.push(...embedLimitProblems(body.embeds ?? []));
  }
  return problems;
}

function allText(value: unknown): string {
  const parts: string[] = [];
  walkStrings(value, (_path, text) => parts.push(text));
  return parts.join('\n');
}

/** Every credit link and every source URL, whole. */
function expectCreditedAndSourced(text: string, label: string): void {
  for (const credit of CREDITS) {
    const name = credit.slice(credit.indexOf(':') + 1);
    expect(text, `${label}: ${name}`).toContain(`[${name}](https://derpibooru.org/tags/`);
  }
  for (const source of SOURCES) expect(text, `${label}: ${source}`).toContain(`<${source}>`);
}

function buttonLabels(components: readonly APIMessageTopLevelComponent[] | undefined): string[] {
  const labels: string[] = [];
  walkStrings(components ?? [], (path, text) => {
    if (path.endsWith('.label')) labels.push(text);
  });
  return labels;
}

/**
 * The English card messages with no placeholder (labels, notices): none may be left in a card made in
 * another language (a label the code still writes itself would show up here).
 */
const ENGLISH_LITERALS = Object.entries(loadCatalogues().get('en-US') ?? {})
  .filter(([key, message]) => key.startsWith('card.') && !message.includes('{') && message.length > 4)
  .map(([, message]) => message);

/** Every field name and the card's own lines of the embed are the pseudo-locale's. */
function expectPseudoEmbed(embed: APIEmbed, gate: Gate): void {
  for (const field of embed.fields ?? []) {
    expect(field.name, `${gate.name}: field name`).toMatch(PSEUDO_MARK);
    // The credit's role labels (or "artist unknown"), and the sources' count lines.
    for (const line of field.value.split('\n')) {
      if (!line.startsWith('<https://') && field.inline !== true)
        expect(line, `${gate.name}: ${field.name}`).toMatch(PSEUDO_MARK);
    }
  }
  // The notice opens the description; a full card's board description comes after it.
  const notice = (embed.description ?? '').split('\n\n')[0] ?? '';
  if (gate.gate !== 'full' || gate.ctx.rules !== undefined || gate.ctx.spoilerChannel === true)
    expect(notice, `${gate.name}: notice`).toMatch(PSEUDO_MARK);
}

describe('the image card in the pseudo-locale', () => {
  const say = pseudoSay();

  it.each(GATES)(
    'GIVEN the $name card THEN every label and notice of ours is the pseudo-locale, in both forms and on its buttons',
    (gate) => {
      const card = cardIn(gate, say);
      expectPseudoEmbed(card.embed, gate);
      const { embed, v2 } = messages(card);
      for (const body of [embed, v2]) {
        const text = allText(body);
        for (const english of ENGLISH_LITERALS)
          expect(text, `${gate.name}: "${english}"`).not.toContain(english);
        for (const label of buttonLabels(body.components)) expect(label).toMatch(PSEUDO_MARK);
      }
      if (gate.credited) {
        expect(allText(v2)).toContain(`**${say('card.field.credit')}**`);
        expect(allText(v2)).toContain(`**${say('card.field.sources', { count: SOURCES.length })}**`);
      }
      if (gate.gate === 'spoilered' || gate.ctx.spoilerChannel === true)
        expect(buttonLabels(embed.components)).toContain(say('card.button.reveal'));
      if (gate.gate === 'rule-hidden')
        expect(buttonLabels(embed.components)).toEqual([say('card.button.why')]);
    },
  );

  it.each(GATES)(
    'GIVEN the $name card THEN both forms fit Discord and keep every credit name and source URL whole',
    (gate) => {
      const card = cardIn(gate, say);
      const { embed, v2 } = messages(card);
      expect(discordProblems(embed)).toEqual([]);
      expect(discordProblems(v2)).toEqual([]);
      for (const label of buttonLabels(embed.components)) expect(label.length).toBeLessThanOrEqual(80);
      if (!gate.credited) return;
      expectCreditedAndSourced(allText(embed), `${gate.name} embed`);
      const form = imageCardV2(card, { textMax: V2_ANSWER_TEXT_MAX });
      expect(form.complete, `${gate.name} V2`).toBe(true);
      expectCreditedAndSourced(allText(form.container), `${gate.name} V2`);
    },
  );
});

describe('the image card in every shipped language', () => {
  it.each(shippedSays())(
    'GIVEN $locale THEN every gate fits in both forms and keeps every credit and source',
    ({ locale, say }) => {
      for (const gate of GATES) {
        const card = cardIn(gate, say);
        const { embed, v2 } = messages(card);
        expect(discordProblems(embed), `${locale} ${gate.name}`).toEqual([]);
        expect(discordProblems(v2), `${locale} ${gate.name}`).toEqual([]);
        if (!gate.credited) continue;
        expectCreditedAndSourced(allText(embed), `${locale} ${gate.name} embed`);
        const form = imageCardV2(card, { textMax: V2_ANSWER_TEXT_MAX });
        expect(form.complete, `${locale} ${gate.name} V2`).toBe(true);
        expectCreditedAndSourced(allText(form.container), `${locale} ${gate.name} V2`);
        // The V2 form found the card's labels in its own language: credit and sources as blocks.
        expect(allText(form.container)).toContain(`**${say('card.field.credit')}**\n`);
      }
    },
  );

  it('GIVEN a German member THEN the card reads German: its labels, notices, counts and buttons', () => {
    const german = shippedSays().find((entry) => entry.locale === 'de');
    if (german === undefined) throw new Error('no German catalogue');
    const full = cardIn(GATES[0]!, german.say);
    expect(full.embed.fields?.map((field) => field.name)).toEqual([
      'Urheber',
      'Quellen',
      'Quellen (Fortsetzung)',
      'Einstufung',
      'Wertung',
      'Größe',
      'Hochgeladen',
      `Tags (${CREDITS.length + TAGS.length + 2})`,
    ]);
    expect(full.embed.fields?.[0]?.value).toContain('**Künstler:** [painter number 0]');
    expect(full.embed.fields?.find((field) => field.name === 'Wertung')?.value).toBe(
      '12.345 (▲ 13.000 ▼ 655) · ★ 2.000 · 💬 31',
    );
    expect(full.embed.fields?.find((field) => field.name === 'Größe')?.value).toBe('4096×2160 PNG');
    const spoilered = cardIn(GATES[2]!, german.say);
    expect(spoilered.embed.description).toBe(
      `Dieses Bild ist vom Filter „Default filter“ wegen **${spoileredTag}** als Spoiler markiert. Bild und Beschreibung werden nicht gezeigt.`,
    );
    expect(buttonLabels(messages(spoilered).embed.components)).toEqual(['Anzeigen']);
    const member = cardIn(
      GATES.find((gate) => gate.name === 'hidden by a member rule')!,
      german.say,
    );
    expect(member.embed.description).toBe('Dieses Bild ist durch deine eigene Liste ausgeblendet.');
    expect(buttonLabels(messages(member).embed.components)).toEqual(['Warum?']);
    const v2 = allText(imageCardV2(spoilered).container);
    expect(v2).toContain('**Urheber**\n**Künstler:**');
    expect(v2).toContain('**Einstufung:** safe');
  });
});

describe('the image card in English', () => {
  it.each(GATES)('GIVEN the $name card and no language THEN it is the English card', (gate) => {
    const english = imageCard(gate.image, { site, ...gate.ctx });
    expect(english.embed).toEqual(cardIn(gate, sayEnglish).embed);
    expect(english.say).toBe(sayEnglish);
  });

  it('GIVEN the English notices other code names THEN they are the catalogue’s', () => {
    expect(sayEnglish('card.notice.processing')).toBe(PROCESSING_NOTICE);
    expect(sayEnglish('card.notice.spoiler-channel')).toBe(SPOILER_CHANNEL_NOTICE);
    expect(sayEnglish('card.notice.spoilered-picture')).toBe(SPOILERED_PICTURE_NOTICE);
  });
});
