/**
 * Answering autocomplete: Discord shows nothing after 3 s, so the features' lookup races a deadline
 * (default 2.2 s); past it the lookup is aborted and the member gets no choices. Discord refuses the
 * whole answer if one choice breaks a limit, so every answer is fitted first. The answer goes out through
 * the one writer (outbox.ts `answerChoices`).
 */
import type { ApplicationCommandOptionChoiceData, AutocompleteInteraction } from 'discord.js';
import type { Logger } from '../logger.js';
import type { DescribeError } from './failures.js';
import { answerChoices } from './outbox.js';

/** Discord's limit on an autocomplete choice's name and on a string value, in characters. */
export const CHOICE_TEXT_MAX = 100;
const CHOICES_MAX = 25;

/** Discord rejects the whole answer if one choice breaks a limit: drop what does not fit. */
export function fitChoices(
  choices: readonly ApplicationCommandOptionChoiceData[],
): ApplicationCommandOptionChoiceData[] {
  const fitted: ApplicationCommandOptionChoiceData[] = [];
  const seen = new Set<string>();
  for (const choice of choices) {
    const name =
      choice.name.length > CHOICE_TEXT_MAX ? `${choice.name.slice(0, CHOICE_TEXT_MAX - 1)}…` : choice.name;
    const value = choice.value;
    if (name.length === 0) continue;
    if (typeof value === 'string' && (value.length === 0 || value.length > CHOICE_TEXT_MAX)) continue;
    const key = String(value);
    if (seen.has(key)) continue;
    seen.add(key);
    fitted.push({ name, value });
    if (fitted.length === CHOICES_MAX) break;
  }
  return fitted;
}

/** Runs `lookup` against the deadline and answers with what it found in time, or with no choices. */
export async function answerAutocomplete(
  interaction: AutocompleteInteraction,
  lookup: (signal: AbortSignal) => Promise<ApplicationCommandOptionChoiceData[]>,
  options: { readonly logger: Logger; readonly timeoutMs: number; readonly describeError: DescribeError },
): Promise<void> {
  const { logger, timeoutMs } = options;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  let choices: ApplicationCommandOptionChoiceData[] = [];
  try {
    const work = lookup(controller.signal);
    // The late result is dropped, but its rejection must not go unhandled.
    work.catch((error: unknown) => logger.debug({ err: error }, 'late autocomplete failed'));
    const result = await Promise.race([work, timeout]);
    if (result === 'timeout') {
      controller.abort();
      logger.info({ timeoutMs }, 'autocomplete timed out; answering with no choices');
    } else {
      choices = fitChoices(result);
    }
  } catch (error) {
    const { expected } = options.describeError(error);
    if (expected) logger.info({ err: error }, 'autocomplete failed');
    else logger.error({ err: error }, 'autocomplete failed');
  } finally {
    clearTimeout(timer);
  }
  await answerChoices(interaction, choices, logger);
}
