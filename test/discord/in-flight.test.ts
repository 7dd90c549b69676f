import { describe, expect, it } from 'vitest';
import { createInFlightTracker } from '../../src/discord/in-flight.js';
import { createLogger } from '../../src/logger.js';
import { parseLogLines } from '../support/harness.js';

function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { logger, lines: () => parseLogLines(lines) };
}

describe('in-flight tracker', () => {
  it('GIVEN a handler that rejects THEN the failure is logged at error level with its context AND it stops counting', async () => {
    const { logger, lines } = capturingLogger();
    const tracker = createInFlightTracker(logger);
    let fail: (error: Error) => void = () => undefined;
    const work = new Promise<void>((_, reject) => {
      fail = reject;
    });
    tracker.track(work, { messageId: 'm1', guildId: 'g1', handler: 'unfurl' });
    expect(tracker.size).toBe(1);
    fail(new Error('link recognition blew up'));
    expect(await tracker.idle(1000)).toBe(0);
    const errors = lines().filter((line) => line['level'] === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      messageId: 'm1',
      guildId: 'g1',
      handler: 'unfurl',
      err: { message: 'link recognition blew up' },
    });
  });

  it('GIVEN handlers that finish THEN nothing is logged and idle resolves with 0', async () => {
    const { logger, lines } = capturingLogger();
    const tracker = createInFlightTracker(logger);
    tracker.track(Promise.resolve(), { handler: 'interaction' });
    tracker.track(new Promise((resolve) => setTimeout(resolve, 5)), { handler: 'interaction' });
    expect(await tracker.idle(1000)).toBe(0);
    expect(tracker.size).toBe(0);
    expect(lines()).toEqual([]);
  });

  it('GIVEN a handler still running when the grace ends THEN idle counts it', async () => {
    const tracker = createInFlightTracker(createLogger({ level: 'silent' }));
    tracker.track(new Promise(() => undefined), { handler: 'interaction' });
    expect(await tracker.idle(10)).toBe(1);
  });
});
