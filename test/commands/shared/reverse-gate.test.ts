import { describe, expect, it } from 'vitest';
import {
  createReverseGate,
  FILES_BUSY_TEXT,
  ONE_AT_A_TIME_TEXT,
} from '../../../commands/shared/reverse-gate.js';

/** A piece of work that runs until `finish()` is called. */
function held() {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let started = false;
  return {
    work: async () => {
      started = true;
      await done;
      return 'ok';
    },
    finish: () => finish(),
    started: () => started,
  };
}

describe('reverse gate', () => {
  it('GIVEN a member with a search running THEN a second one is refused at once; after it ends THEN allowed again', async () => {
    const gate = createReverseGate();
    const a = held();
    const running = gate.run('m1', 'url', a.work);
    await expect(gate.run('m1', 'file', async () => 'x')).rejects.toThrow(ONE_AT_A_TIME_TEXT);
    await expect(gate.run('m2', 'url', async () => 'y')).resolves.toBe('y');
    a.finish();
    await expect(running).resolves.toBe('ok');
    await expect(gate.run('m1', 'url', async () => 'z')).resolves.toBe('z');
  });

  it('GIVEN two file searches running THEN a third waits (nothing started) and runs when one ends', async () => {
    const gate = createReverseGate({ maxFiles: 2 });
    const [a, b, c] = [held(), held(), held()];
    const runs = [gate.run('a', 'file', a.work), gate.run('b', 'file', b.work)];
    const third = gate.run('c', 'file', c.work);
    await Promise.resolve();
    expect(c.started()).toBe(false);
    expect(gate.stats()).toEqual({ members: 3, files: 2, queued: 1 });
    a.finish();
    await runs[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(c.started()).toBe(true);
    b.finish();
    c.finish();
    await Promise.all([runs[1], third]);
    expect(gate.stats()).toEqual({ members: 0, files: 0, queued: 0 });
  });

  it('GIVEN the queue full or the wait too long THEN the member is told the bot is busy', async () => {
    const gate = createReverseGate({ maxFiles: 1, maxQueued: 1, maxWaitMs: 20 });
    const a = held();
    const running = gate.run('a', 'file', a.work);
    const waiting = gate.run('b', 'file', async () => 'late');
    await expect(gate.run('c', 'file', async () => 'never')).rejects.toThrow(FILES_BUSY_TEXT);
    await expect(waiting).rejects.toThrow(FILES_BUSY_TEXT);
    a.finish();
    await running;
    expect(gate.stats()).toEqual({ members: 0, files: 0, queued: 0 });
  });

  it('GIVEN URL searches THEN they never wait for file slots', async () => {
    const gate = createReverseGate({ maxFiles: 1, maxQueued: 0 });
    const a = held();
    const running = gate.run('a', 'file', a.work);
    await expect(gate.run('b', 'url', async () => 'url')).resolves.toBe('url');
    a.finish();
    await running;
  });
});
