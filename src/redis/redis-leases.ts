/**
 * Feed poll leases (commands/feed/leases.ts) shared by every process of the bot through Redis: a lease is
 * one key, `philomena-bot::lease:<name>`, set NX with its span as PX, so Redis's own clock ends it and a
 * process that dies holds nothing longer than the span.
 *
 * Redis away: each process leases on its own (so each may poll a group once per interval; the feeds'
 * cursors and Discord's nonces still keep any image from being posted twice), says so in one line, and
 * shares again when Redis answers.
 */
import type { Logger } from 'pino';
import { createLocalLeases, type PollLeases } from '../../commands/feed/leases.js';
import { REDIS_NAMESPACE } from '../store/index.js';
import { createRedisHealth, scriptRunner, type RedisScripting } from './scripts.js';

const TAKE = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

export interface RedisLeasesOptions {
  readonly client: () => Promise<RedisScripting>;
  readonly logger: Logger;
  /** Key prefix. Default `philomena-bot::lease:`. */
  readonly prefix?: string;
}

export function createRedisLeases(options: RedisLeasesOptions): PollLeases {
  const prefix = options.prefix ?? `${REDIS_NAMESPACE}::lease:`;
  const health = createRedisHealth(options.logger, 'feed polls', 'each process polls every feed itself');
  const run = scriptRunner(options.client, health);
  const local = createLocalLeases();
  return {
    async take(name, ms) {
      const span = String(Math.max(1, Math.ceil(ms)));
      try {
        return (await run(TAKE, [prefix + name], [`pid ${process.pid}`, span])) === 1;
      } catch {
        return local.take(name, ms);
      }
    },
  };
}
