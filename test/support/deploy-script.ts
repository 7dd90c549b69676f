/**
 * `npm run deploy-commands` (scripts/deploy-commands.ts through tsx) as a child process, in a fresh empty
 * directory (so no developer's `.env` leaks in) with exactly the environment given (and PATH). The
 * directory is removed once the script has ended.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const SCRIPT = path.join(ROOT, 'scripts', 'deploy-commands.ts');

export interface ScriptRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runDeployCommands(
  env: Readonly<Record<string, string>>,
  options: { readonly timeoutMs?: number } = {},
): Promise<ScriptRun> {
  const dir = await mkdtemp(path.join(tmpdir(), 'deploy-'));
  try {
    return await new Promise((resolve) => {
      execFile(
        TSX,
        [SCRIPT],
        {
          cwd: dir,
          env: { PATH: process.env['PATH'] ?? '', ...env },
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        },
        (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        },
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
