/**
 * The benches' answer classifier (bench/answers.ts) against what the bot really sends: cards built by the
 * product's own renderers and `cardMessage` (the one place that picks a card's form), shaped for the wire
 * by the runtime's `outgoing`, and the member's error texts of commands/shared/error-texts.ts. A new card
 * form, or a changed error text, breaks this before it quietly skews a bench (issue 18: a Components V2
 * card, a video, once counted as "other answers" and failed the bot bench's goal).
 */
import { MessageFlags } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { cardsIn, classifyAnswer } from '../../bench/answers.js';
import { cardMessage } from '../../commands/shared/show-image.js';
import { userErrorText } from '../../commands/shared/error-texts.js';
import { outgoing } from '../../src/discord/outbox.js';
import type { MessageBody } from '../../src/discord/contract.js';
import { NotFoundError, SiteBlockedError, SiteUnavailableError } from '../../src/errors.js';
import { visibleImageSchema, type Image } from '../../src/philomena/schemas.js';
import { resolveSite } from '../../src/philomena/sites.js';
import { absolutiseImage } from '../../src/philomena/urls.js';
import { imageCard, imageGrid } from '../../src/render/index.js';
import { createDataset, IDS } from '../fakes/philomena/data.js';
import { imageJson } from '../fakes/philomena/render.js';

const site = resolveSite('https://booru.test');
const data = createDataset();

/** An image of the local board as the client reads it. */
function boardImage(id: number): Image {
  const record = data.images.get(id);
  if (!record) throw new Error(`no image ${id}`);
  const json = imageJson(record, false, { base: site.baseUrl, style: 'derpibooru', tagIdsByName: new Map() });
  return absolutiseImage(visibleImageSchema.parse(json), site);
}

/** The card of image `id` in a channel that is not age-restricted, as /image answers it. */
function cardBody(id: number): MessageBody {
  return cardMessage(imageCard(boardImage(id), { site, ageRestricted: false }), site, id);
}

/** As the bot's edit of its deferred reply carries it, and as an interaction callback (type 4) does. */
function onTheWire(body: MessageBody): unknown[] {
  const edit = outgoing(body);
  return [edit, { type: 4, data: edit }];
}

/** A member's error text, as the bot sends it privately. */
function errorAnswer(error: unknown): unknown[] {
  const text = userErrorText(error).text;
  const body = { content: text, embeds: [], components: [], flags: MessageFlags.Ephemeral };
  return [body, { type: 4, data: body }];
}

describe('the benches’ answer classifier', () => {
  it('GIVEN a picture’s card (embed form) THEN it is a card, as an embed', () => {
    const body = cardBody(IDS.safe);
    expect(body.componentsV2).not.toBe(true);
    for (const sent of onTheWire(body)) {
      expect(classifyAnswer(sent)).toEqual({ answer: 'card', form: 'embed', text: '' });
      expect(cardsIn(sent)).toBe(1);
    }
  });

  it('GIVEN a video’s card (Components V2: no embeds, no content) THEN it is a card, as V2', () => {
    const body = cardBody(IDS.webm);
    expect(body.componentsV2).toBe(true);
    for (const sent of onTheWire(body)) {
      expect(classifyAnswer(sent)).toEqual({ answer: 'card', form: 'v2', text: '' });
      expect(cardsIn(sent)).toBe(1);
    }
  });

  it('GIVEN the minimal card of an explicit image outside an age-restricted channel THEN it is a card too', () => {
    const card = imageCard(boardImage(IDS.explicit), { site, ageRestricted: false });
    expect(card.embed.image).toBeUndefined();
    for (const sent of onTheWire(cardBody(IDS.explicit))) expect(classifyAnswer(sent).answer).toBe('card');
  });

  it('GIVEN a search grid (Components V2) THEN it is a card', () => {
    const grid = imageGrid([boardImage(IDS.safe), boardImage(IDS.webm)], {
      site,
      ageRestricted: false,
      heading: 'Search: pony',
    });
    for (const sent of onTheWire({ componentsV2: true, components: [grid.container] })) {
      expect(classifyAnswer(sent)).toMatchObject({ answer: 'card', form: 'v2' });
    }
  });

  it.each([
    ['not found', new NotFoundError('gone', { site: site.id })],
    [
      'site busy',
      new SiteUnavailableError('queue full', 'budget-exhausted', { site: site.id, retryAfterMs: 5000 }),
    ],
    ['site down', new SiteUnavailableError('502', 'server-error', { site: site.id })],
    ['site busy', new SiteBlockedError('blocked', 960_000, { site: site.id })],
  ] as const)('GIVEN the %s error text THEN it is that answer, not a card', (answer, error) => {
    for (const sent of errorAnswer(error)) {
      expect(classifyAnswer(sent)).toEqual({ answer, form: undefined, text: userErrorText(error).text });
      expect(cardsIn(sent)).toBe(0);
    }
  });

  it('GIVEN an unexpected failure’s text THEN it is "other", with the text to quote', () => {
    const [sent] = errorAnswer(new Error('boom'));
    expect(classifyAnswer(sent)).toMatchObject({ answer: 'other', form: undefined });
    expect(classifyAnswer(sent).text).not.toBe('');
  });

  it('GIVEN an autocomplete answer THEN its choices are counted, or their absence', () => {
    expect(classifyAnswer({ type: 8, data: { choices: [{ name: 'pony', value: 'pony' }] } }).answer).toBe(
      'choices',
    );
    expect(classifyAnswer({ type: 8, data: { choices: [] } }).answer).toBe('no choices');
  });
});
