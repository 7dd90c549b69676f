/**
 * `npm run bench [name...]`: runs every bench/*.bench.ts (or the named ones) in turn and prints one table,
 * with the machine it ran on. Figures, not assertions: these machines are noisy.
 */
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTable, type Bench, type BenchRow } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);

const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

const rows: BenchRow[] = [];
for (const file of files) {
  const started = performance.now();
  process.stderr.write(`running ${file} ...\n`);
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { default: Bench };
  rows.push(...(await mod.default()));
  process.stderr.write(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `Machine: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`,
);
console.log(`Date: ${new Date().toISOString().slice(0, 10)}\n`);
console.log(formatTable(rows));
if (rows.some((r) => r.ok === false)) process.exitCode = 1;
