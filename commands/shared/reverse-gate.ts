/**
 * Limits on reverse searches, which cost more than any other command: the board downloads a member's URL
 * (slow URLs are the member's, not the site's), and a file search streams up to 25 MB from Discord to the
 * board (unbounded, a few members' files would fill the process's memory).
 *
 * - each member has one reverse search in flight at most: a second is refused at once;
 * - file searches run a few at a time in the whole process; more wait in a short bounded queue, and past
 *   it (or past the wait) the member is told the bot is busy.
 *
 * The slot is taken before anything is downloaded, so waiting costs no memory.
 */
import { UserFacingError } from '../../src/discord/failures.js';

export interface ReverseGateOptions {
  /** File searches at once; default 2. */
  readonly maxFiles?: number;
  /** File searches waiting for a turn; default 8. */
  readonly maxQueued?: number;
  /** The longest a file search waits for its turn; default 20 s. */
  readonly maxWaitMs?: number;
}

export interface ReverseGate {
  /** Runs `work` as `member`'s reverse search of `kind`, or throws a UserFacingError saying why not. */
  run<T>(member: string, kind: 'url' | 'file', work: () => Promise<T>): Promise<T>;
  stats(): { readonly members: number; readonly files: number; readonly queued: number };
}

export const ONE_AT_A_TIME_TEXT = 'You already have a reverse search running. Wait for it to finish.';
export const FILES_BUSY_TEXT = 'Too many pictures are being searched right now. Try again in a minute.';

interface Waiter {
  readonly grant: () => void;
  readonly timer: NodeJS.Timeout;
}

export function createReverseGate(options: ReverseGateOptions = {}): ReverseGate {
  const maxFiles = options.maxFiles ?? 2;
  const maxQueued = options.maxQueued ?? 8;
  const maxWaitMs = options.maxWaitMs ?? 20_000;
  const members = new Set<string>();
  const queue: Waiter[] = [];
  let files = 0;

  function fileTurn(): Promise<void> {
    if (files < maxFiles) {
      files += 1;
      return Promise.resolve();
    }
    if (queue.length >= maxQueued)
      return Promise.reject(new UserFacingError('reverse.files-busy', FILES_BUSY_TEXT));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The finishing search hands its slot over: `files` stays as it is.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new UserFacingError('reverse.files-busy', FILES_BUSY_TEXT));
        }, maxWaitMs),
      };
      queue.push(waiter);
    });
  }

  function fileDone(): void {
    const next = queue.shift();
    if (next === undefined) files -= 1;
    else next.grant();
  }

  return {
    async run(member, kind, work) {
      if (members.has(member)) throw new UserFacingError('reverse.one-at-a-time', ONE_AT_A_TIME_TEXT);
      members.add(member);
      try {
        if (kind === 'url') return await work();
        await fileTurn();
        try {
          return await work();
        } finally {
          fileDone();
        }
      } finally {
        members.delete(member);
      }
    },
    stats: () => ({ members: members.size, files, queued: queue.length }),
  };
}
