/**
 * `npm run launch`: the bot as several processes on this machine that split the gateway shards
 * (src/launcher/launcher.ts). Configured from the environment (or `.env`) like the bot, plus:
 *
 * - LAUNCH_PROCESSES: how many bot processes (default: one per CPU core; never more than the shards);
 * - SHARD_COUNT: the total shard count (blank: the count Discord recommends). SHARD_IDS is set per process
 *   by the launcher; one in the environment is ignored.
 *
 * More than one process needs STORE_URL=redis://... SIGTERM/SIGINT stop every process (each drains its work
 * in flight) and exit 0; SIGHUP restarts them one at a time (a rolling deploy after `npm run build`). A
 * configuration problem exits 1 with the reason.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { SHARD_COUNT_MAX, loadConfig, type Config } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { LaunchRefusedError, startLauncher, type Launcher } from '../src/launcher/launcher.js';
import { createLogger } from '../src/logger.js';
import { storeSecretsOf } from '../src/store/index.js';

/** The entry point of one bot process, next to this script once compiled (dist/scripts → dist/src). */
const BOT_MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const PROCESSES_MAX = 1_000;

type Parsed<T> = { readonly value: T } | { readonly problem: string };

function processesFrom(value: string | undefined): Parsed<number> {
  const text = value?.trim() ?? '';
  if (text === '') return { value: Math.max(1, availableParallelism()) };
  const n = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (n >= 1 && n <= PROCESSES_MAX) return { value: n };
  return {
    problem: `LAUNCH_PROCESSES must be a whole number from 1 to ${PROCESSES_MAX} (or blank for one per CPU core)`,
  };
}

function shardCountFrom(value: string | undefined): Parsed<number | 'auto'> {
  const text = value?.trim() ?? '';
  if (text === '') return { value: 'auto' };
  const n = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (n >= 1 && n <= SHARD_COUNT_MAX) return { value: n };
  return {
    problem: `SHARD_COUNT must be a whole number from 1 to ${SHARD_COUNT_MAX} (or blank for the count Discord recommends)`,
  };
}

/** A configuration problem: its one line, exit 1 (nothing was started). */
function refuse(problem: string): never {
  console.error(problem);
  process.exit(1);
}

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const processes = processesFrom(process.env['LAUNCH_PROCESSES']);
  const shardCount = shardCountFrom(process.env['SHARD_COUNT']);
  if ('problem' in processes) refuse(processes.problem);
  if ('problem' in shardCount) refuse(shardCount.problem);
  // The launcher sets SHARD_COUNT and SHARD_IDS for each process itself.
  const env: Record<string, string | undefined> = {
    ...process.env,
    SHARD_IDS: undefined,
    SHARD_COUNT: undefined,
  };
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message);
    throw error;
  }

  // Synchronous, like the children's lines passed through on the same stdout, so the two stay in order.
  const destination = pino.destination({ dest: 1, sync: true });
  const exit = (code: number): never => {
    try {
      destination.flushSync();
    } catch {
      // Not open yet or stdout gone.
    }
    process.exit(code);
  };
  const logger = createLogger({
    level: config.logLevel,
    secrets: [config.discordToken, config.booruApiKey, ...storeSecretsOf(config.storeUrl)],
    destination,
  });

  let launcher: Launcher | undefined;
  let stopRequested = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopRequested) return;
    stopRequested = true;
    logger.info({ signal }, 'stopping');
    // Before the launcher exists (asking Discord for the shard count) nothing runs yet.
    if (launcher === undefined) exit(0);
    else void launcher.stop();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => {
    if (stopRequested) return;
    if (launcher === undefined) {
      logger.warn('SIGHUP while starting: nothing to restart yet');
      return;
    }
    launcher.rollingRestart().catch((error: unknown) => {
      logger.error({ err: error }, 'rolling restart failed');
    });
  });

  try {
    launcher = await startLauncher({
      processes: processes.value,
      shardCount: shardCount.value,
      env,
      command: { execPath: process.execPath, args: [BOT_MAIN] },
      logger,
    });
  } catch (error) {
    if (error instanceof LaunchRefusedError || error instanceof ConfigError) {
      console.error(error.message);
      exit(1);
    }
    throw error;
  }
  exit(await launcher.done);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
