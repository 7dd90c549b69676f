/**
 * The budget's waiting line, fair by class, then server, then member (budget.ts says why):
 *
 * - classes in `QUEUED_PRIORITIES` order: every waiter of an earlier class before any of a later one;
 * - within a class, the servers in turn, and within a server its members in turn: a server or member just
 *   served goes to the back of its line; within one member, first come first served;
 * - the anonymous server and member (a program using the library alone) are the `undefined` keys.
 *
 * Plain functions over an explicit `FairQueue`, generic over what waits, so the order can be tested with a
 * table. Empty groups are dropped at once, so the maps never outgrow the queue.
 */
import type { RequestPriority } from '../request-context.js';

/**
 * The classes that wait for a slot, in the order they are served. `autocomplete` is not here: it never
 * waits. A new class takes its place in this list and nothing else changes.
 */
export const QUEUED_PRIORITIES = [
  'interactive',
  'account',
  'unfurl',
  'feed',
] as const satisfies readonly RequestPriority[];
export type QueuedPriority = (typeof QUEUED_PRIORITIES)[number];

/** What the queue needs to know of a waiter: where it stands in line. */
export interface Queued {
  readonly priority: QueuedPriority;
  readonly server: string | undefined;
  readonly member: string | undefined;
}

/**
 * One class's waiters: servers in turn order, each with its members in turn order, each member's waiters
 * FIFO. A Map keeps insertion order, so "to the back of the line" is delete-and-set.
 */
type ClassQueue<W> = Map<string | undefined, Map<string | undefined, W[]>>;

export interface FairQueue<W extends Queued> {
  readonly classes: ReadonlyMap<QueuedPriority, ClassQueue<W>>;
  /** Waiters per named server and per named member, for the caps; entries leave at zero. */
  readonly serverQueued: Map<string, number>;
  readonly memberQueued: Map<string, number>;
  /** Waiters in the queue. */
  size: number;
}

export interface QueueCaps {
  readonly maxQueue: number;
  readonly maxQueuePerServer: number;
  readonly maxQueuePerMember: number;
}

export function createFairQueue<W extends Queued>(): FairQueue<W> {
  return {
    classes: new Map<QueuedPriority, ClassQueue<W>>(QUEUED_PRIORITIES.map((p) => [p, new Map()])),
    serverQueued: new Map(),
    memberQueued: new Map(),
    size: 0,
  };
}

function count(map: Map<string, number>, key: string | undefined, delta: number): void {
  if (key === undefined) return;
  const next = (map.get(key) ?? 0) + delta;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}

/** Puts `waiter` at the end of its member's line (its member and server keep their turns). */
export function enqueue<W extends Queued>(queue: FairQueue<W>, waiter: W): void {
  const servers = queue.classes.get(waiter.priority);
  if (!servers) throw new Error(`unreachable: no queue for ${waiter.priority}`);
  let members = servers.get(waiter.server);
  if (!members) {
    members = new Map();
    servers.set(waiter.server, members);
  }
  let list = members.get(waiter.member);
  if (!list) {
    list = [];
    members.set(waiter.member, list);
  }
  list.push(waiter);
  queue.size += 1;
  count(queue.serverQueued, waiter.server, 1);
  count(queue.memberQueued, waiter.member, 1);
}

/**
 * Takes `waiter` out of the queue. A waiter that was `served` sends its member and server to the back of
 * their lines (round-robin); one that left (deadline, abort) keeps their places. Empty groups go.
 */
export function dequeue<W extends Queued>(queue: FairQueue<W>, waiter: W, served: boolean): void {
  const servers = queue.classes.get(waiter.priority);
  const members = servers?.get(waiter.server);
  const list = members?.get(waiter.member);
  const index = list?.indexOf(waiter) ?? -1;
  if (!servers || !members || !list || index < 0) return;
  list.splice(index, 1);
  queue.size -= 1;
  count(queue.serverQueued, waiter.server, -1);
  count(queue.memberQueued, waiter.member, -1);
  if (list.length === 0 || served) members.delete(waiter.member);
  if (list.length > 0 && served) members.set(waiter.member, list);
  if (members.size === 0 || served) servers.delete(waiter.server);
  if (members.size > 0 && served) servers.set(waiter.server, members);
}

/** Every waiter, in class, server turn, member turn and FIFO order. */
export function* waiters<W extends Queued>(queue: FairQueue<W>): Generator<W> {
  for (const servers of queue.classes.values()) {
    for (const members of servers.values()) {
      for (const list of members.values()) yield* list;
    }
  }
}

/**
 * The waiter to serve next: the first, in class, server turn, member turn and FIFO order, that `fits`. A
 * member's later waiter may go before its first when only the later one fits (a plain fetch behind a
 * search that waits for the search window).
 */
export function nextToServe<W extends Queued>(
  queue: FairQueue<W>,
  fits: (waiter: W) => boolean,
): W | undefined {
  for (const servers of queue.classes.values()) {
    for (const members of servers.values()) {
      for (const list of members.values()) {
        const waiter = list.find(fits);
        if (waiter) return waiter;
      }
    }
  }
  return undefined;
}

/** Why a waiter of `server` and `member` may not join the queue now; undefined when it may. */
export function refusal<W extends Queued>(
  queue: FairQueue<W>,
  caps: QueueCaps,
  server: string | undefined,
  member: string | undefined,
): string | undefined {
  if (queue.size >= caps.maxQueue) return `${queue.size} requests already waiting`;
  if (server !== undefined && (queue.serverQueued.get(server) ?? 0) >= caps.maxQueuePerServer) {
    return `${caps.maxQueuePerServer} requests of this server already waiting`;
  }
  if (member !== undefined && (queue.memberQueued.get(member) ?? 0) >= caps.maxQueuePerMember) {
    return `${caps.maxQueuePerMember} requests of this member already waiting`;
  }
  return undefined;
}
