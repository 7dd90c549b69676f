/**
 * Member-facing errors counted by identifier (`philomena_bot_user_errors_total{id}`): only listed
 * identifiers become label values, so the label stays bounded whatever a handler throws.
 */
import { describe, expect, it } from 'vitest';
import { USER_ERROR_IDS } from '../../commands/shared/error-texts.js';
import { createBotMetrics } from '../../src/metrics/index.js';

async function userErrors(metrics: ReturnType<typeof createBotMetrics>): Promise<Record<string, number>> {
  const family = await metrics.registry.getSingleMetric('philomena_bot_user_errors_total')?.get();
  return Object.fromEntries((family?.values ?? []).map((v) => [String(v.labels['id']), v.value]));
}

const event = { kind: 'command', command: 'image', ms: 10 } as const;

describe('philomena_bot_user_errors_total', () => {
  it('GIVEN answers with and without an error identifier THEN errors are counted by identifier, every listed one exported from 0', async () => {
    const metrics = createBotMetrics({ userErrorIds: USER_ERROR_IDS });
    metrics.runtime.answered?.({ ...event, outcome: 'user_error', errorId: 'board.not-found' });
    metrics.runtime.answered?.({ ...event, outcome: 'user_error', errorId: 'board.not-found' });
    metrics.runtime.answered?.({ ...event, outcome: 'error', errorId: 'generic' });
    metrics.runtime.answered?.({ ...event, outcome: 'ok' });
    const counts = await userErrors(metrics);
    expect(counts['board.not-found']).toBe(2);
    expect(counts['generic']).toBe(1);
    expect(counts['feed.manage-server']).toBe(0);
    expect(Object.keys(counts).sort()).toEqual([...USER_ERROR_IDS].sort());
    const text = await metrics.registry.metrics();
    expect(text).toContain('philomena_bot_user_errors_total{id="board.not-found"} 2');
  });

  it('GIVEN an identifier not listed THEN it is counted as other, never as itself', async () => {
    const metrics = createBotMetrics({ userErrorIds: USER_ERROR_IDS });
    metrics.runtime.answered?.({ ...event, outcome: 'user_error', errorId: 'made.up-by-a-handler' });
    const counts = await userErrors(metrics);
    expect(counts['other']).toBe(1);
    expect(counts['made.up-by-a-handler']).toBeUndefined();
  });

  it('GIVEN no list THEN the runtime’s own identifiers are the known ones', async () => {
    const metrics = createBotMetrics();
    metrics.runtime.answered?.({ ...event, outcome: 'user_error', errorId: 'button.gone' });
    metrics.runtime.answered?.({ ...event, outcome: 'user_error', errorId: 'board.not-found' });
    const counts = await userErrors(metrics);
    expect(counts['button.gone']).toBe(1);
    expect(counts['other']).toBe(1);
  });
});
