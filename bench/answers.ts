/**
 * What kind of answer the bot gave, read from the body it sent to the local Discord (an interaction
 * callback's `data`, or the edit or follow-up itself): the one classifier of the whole-bot benches (bot,
 * scale). A card is either form the bot sends (commands/shared/show-image.ts, cardMessage): embeds, or a
 * Components V2 message (the IS_COMPONENTS_V2 flag; a video, a spoilered picture) whose container holds the
 * card, read as test/support/messages.ts reads it. test/bench/answers.test.ts feeds it the product's own
 * cards and error texts, so it keeps in step with them.
 */
import { z } from 'zod';
import { componentsOfType, isComponentsV2, textOf } from '../test/fakes/discord/v2.js';

export type Answer =
  | 'card'
  | 'choices'
  | 'no choices'
  | 'cooldown'
  | 'no results'
  | 'not found'
  | 'site busy'
  | 'site down'
  | 'other';

export interface Classified {
  readonly answer: Answer;
  /** A card's form; undefined for anything else. */
  readonly form: 'embed' | 'v2' | undefined;
  /** The text of an answer that is no card and no choices (to quote an unexpected one). */
  readonly text: string;
}

/** ComponentType.Container: the card of a Components V2 message (a grid is one too). */
const CONTAINER = 17;

/** A message body as sent; anything else in it is not read, and a field of the wrong shape counts as absent. */
const messageSchema = z.object({
  content: z.string().optional().catch(undefined),
  embeds: z.array(z.unknown()).optional().catch(undefined),
  components: z.array(z.unknown()).optional().catch(undefined),
  flags: z.number().optional().catch(undefined),
  choices: z.array(z.unknown()).optional().catch(undefined),
});
type SentMessage = z.infer<typeof messageSchema>;

/** An interaction callback wraps the message in `data`; an edit or a follow-up is the message itself. */
const callbackSchema = z.object({ type: z.number(), data: z.unknown() });

export function messageOf(body: unknown): SentMessage {
  const callback = callbackSchema.safeParse(body);
  const parsed = messageSchema.safeParse(callback.success ? callback.data.data : body);
  return parsed.success ? parsed.data : {};
}

/** The cards of a message: its embeds, or the containers of a Components V2 message. */
function cardsOf(message: SentMessage): { form: Classified['form']; count: number } {
  const embeds = message.embeds?.length ?? 0;
  if (embeds > 0) return { form: 'embed', count: embeds };
  const tree = { components: message.components, flags: message.flags };
  const containers = isComponentsV2(tree) ? componentsOfType(tree, CONTAINER).length : 0;
  return containers > 0 ? { form: 'v2', count: containers } : { form: undefined, count: 0 };
}

/** How many cards the body carries (an unfurl reply holds up to three embeds, or one V2 card). */
export function cardsIn(body: unknown): number {
  return cardsOf(messageOf(body)).count;
}

export function classifyAnswer(body: unknown): Classified {
  const message = messageOf(body);
  if (message.choices !== undefined) {
    return { answer: message.choices.length > 0 ? 'choices' : 'no choices', form: undefined, text: '' };
  }
  const { form } = cardsOf(message);
  if (form !== undefined) return { answer: 'card', form, text: '' };
  // A V2 message carries its text in text displays, never in `content`.
  const text = isComponentsV2({ components: message.components, flags: message.flags })
    ? textOf(message.components ?? [])
    : (message.content ?? '');
  // The board's own block ("… has paused the bot's requests …") is the site being busy too.
  const answer: Answer = /busy|paused the bot's requests/i.test(text)
    ? 'site busy'
    : /too quickly/i.test(text)
      ? 'cooldown'
      : /down or not answering/i.test(text)
        ? 'site down'
        : /not found/i.test(text)
          ? 'not found'
          : /no images match/i.test(text)
            ? 'no results'
            : 'other';
  return { answer, form: undefined, text };
}
