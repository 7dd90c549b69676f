/**
 * Reading a child's output: it is passed on line by line, unchanged, and its stdout is watched for the
 * bot's "bot ready" line and read for pino levels (to drop what the operator did not ask for).
 */
import { z } from 'zod';
import type { Config } from '../config.js';

/** pino's numeric levels; LOG_LEVEL names. */
export const LEVEL_VALUES: Readonly<Record<Config['logLevel'], number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/** What the launcher reads of a child's pino line: its level, and its message for the ready line. */
const levelField = z.object({ level: z.number() });
const readyLine = z.object({ msg: z.literal('bot ready') });

/** The numeric level of a pino line, undefined for anything else (kept). */
export function levelOf(line: string): number | undefined {
  const quick = /^\{"level":(\d+)/.exec(line);
  if (quick) return Number(quick[1]);
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = levelField.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data.level : undefined;
  } catch {
    return undefined;
  }
}

/** The bot's own "bot ready" line (a pino line whose msg is exactly that). */
export function isReadyLine(line: string): boolean {
  if (!line.includes('"bot ready"')) return false;
  try {
    return readyLine.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/** A line longer than this without a newline is passed on in pieces (a child must not grow our memory). */
const MAX_LINE = 1 << 20;

/** Calls `onLine` with each complete line of `stream` (without its newline), and the rest at the end. */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > MAX_LINE) {
      onLine(pending);
      pending = '';
    }
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
    pending = '';
  });
}
