/**
 * The budget's fair queue alone (src/philomena/budget/fair-queue.ts): who is served next, by class, then
 * server turn, then member turn, then arrival; the caps; and the counts a waiter leaving gives back.
 */
import { describe, expect, it } from 'vitest';
import {
  createFairQueue,
  dequeue,
  enqueue,
  nextToServe,
  refusal,
  waiters,
  type FairQueue,
  type Queued,
  type QueuedPriority,
} from '../../src/philomena/budget/fair-queue.js';

interface Named extends Queued {
  readonly name: string;
  readonly fits: boolean;
}

/** `priority/server/member/name`, with `-` for no server or member, and a trailing `!` for one that does not fit. */
function waiter(text: string): Named {
  const [priority, server, member, name = ''] = text.split('/');
  return {
    priority: priority as QueuedPriority,
    server: server === '-' ? undefined : server,
    member: member === '-' ? undefined : member,
    name: name.replace('!', ''),
    fits: !name.endsWith('!'),
  };
}

/** Serves the queue until nothing that fits is left; the names in the order served. */
function serveAll(queue: FairQueue<Named>): string[] {
  const served: string[] = [];
  for (let next = nextToServe(queue, (w) => w.fits); next; next = nextToServe(queue, (w) => w.fits)) {
    dequeue(queue, next, true);
    served.push(next.name);
  }
  return served;
}

function queueOf(texts: readonly string[]): FairQueue<Named> {
  const queue = createFairQueue<Named>();
  for (const text of texts) enqueue(queue, waiter(text));
  return queue;
}

describe('budget fair queue: the order served', () => {
  it.each([
    {
      name: 'one member',
      queue: ['interactive/s1/m1/a', 'interactive/s1/m1/b', 'interactive/s1/m1/c'],
      served: ['a', 'b', 'c'],
    },
    {
      name: 'classes',
      queue: ['feed/s1/m1/f', 'unfurl/s1/m1/u', 'interactive/s1/m1/i'],
      served: ['i', 'u', 'f'],
    },
    {
      name: 'two members of one server',
      queue: ['interactive/s1/m1/a1', 'interactive/s1/m1/a2', 'interactive/s1/m2/b1', 'interactive/s1/m2/b2'],
      served: ['a1', 'b1', 'a2', 'b2'],
    },
    {
      name: 'two servers, one busier',
      queue: [
        'interactive/s1/m1/a1',
        'interactive/s1/m2/a2',
        'interactive/s1/m3/a3',
        'interactive/s2/m4/b1',
        'interactive/s2/m4/b2',
      ],
      served: ['a1', 'b1', 'a2', 'b2', 'a3'],
    },
    {
      name: 'the anonymous group beside a server',
      queue: ['interactive/-/-/x1', 'interactive/-/-/x2', 'interactive/s1/m1/a1'],
      served: ['x1', 'a1', 'x2'],
    },
    {
      name: 'a first waiter that does not fit',
      queue: ['interactive/s1/m1/search!', 'interactive/s1/m1/image', 'unfurl/s2/m2/u'],
      served: ['image', 'u'],
    },
  ])('GIVEN $name THEN they are served $served', ({ queue, served }) => {
    const q = queueOf(queue);
    expect(serveAll(q)).toEqual(served);
    expect(q.size).toBe(queue.length - served.length);
  });

  it('GIVEN waiters THEN waiters() walks them in class, server, member and arrival order', () => {
    const q = queueOf([
      'unfurl/s1/m1/u',
      'interactive/s1/m1/a',
      'interactive/s2/m2/b',
      'interactive/s1/m1/c',
    ]);
    expect([...waiters(q)].map((w) => w.name)).toEqual(['a', 'c', 'b', 'u']);
  });
});

describe('budget fair queue: leaving and the counts', () => {
  it('GIVEN a waiter leaves unserved THEN its server keeps its turn and the counts go back to zero', () => {
    const q = queueOf(['interactive/s1/m1/a', 'interactive/s2/m2/b']);
    const [a, b] = [...waiters(q)];
    if (!a || !b) throw new Error('two waiters expected');
    const late = waiter('interactive/s1/m1/c');
    enqueue(q, late);
    dequeue(q, a, false);
    expect([...waiters(q)].map((w) => w.name)).toEqual(['c', 'b']);
    dequeue(q, late, false);
    dequeue(q, b, false);
    dequeue(q, b, false); // twice: a no-op
    expect(q.size).toBe(0);
    expect([...q.serverQueued, ...q.memberQueued]).toEqual([]);
    expect([...q.classes.values()].every((servers) => servers.size === 0)).toBe(true);
  });
});

describe('budget fair queue: refusal', () => {
  const caps = { maxQueue: 4, maxQueuePerServer: 2, maxQueuePerMember: 1 };
  it.each([
    { queue: [], server: 's1', member: 'm1', refused: undefined },
    {
      queue: ['interactive/s1/m1/a'],
      server: 's1',
      member: 'm1',
      refused: '1 requests of this member already waiting',
    },
    { queue: ['interactive/s1/m1/a'], server: 's1', member: 'm2', refused: undefined },
    {
      queue: ['interactive/s1/m1/a', 'feed/s1/m2/b'],
      server: 's1',
      member: 'm3',
      refused: '2 requests of this server already waiting',
    },
    {
      queue: ['interactive/s1/m1/a', 'feed/s1/m2/b'],
      server: 's2',
      member: 'm1',
      refused: '1 requests of this member already waiting',
    },
    {
      queue: ['interactive/s1/m1/a', 'interactive/s2/m2/b', 'interactive/s3/m3/c', 'interactive/s4/m4/d'],
      server: 's5',
      member: 'm5',
      refused: '4 requests already waiting',
    },
    {
      queue: ['interactive/-/-/a', 'interactive/-/-/b'],
      server: undefined,
      member: undefined,
      refused: undefined,
    },
  ])(
    'GIVEN $queue THEN server $server, member $member is refused: $refused',
    ({ queue, server, member, refused }) => {
      expect(refusal(queueOf(queue), caps, server, member)).toBe(refused);
    },
  );
});
