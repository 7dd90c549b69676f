import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const script = path.join(root, 'scripts', 'deploy-commands.ts');

let discord: FakeDiscord | undefined;
let dir: string | undefined;
afterEach(async () => {
  await discord?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  discord = undefined;
  dir = undefined;
});

/** Runs the script in an empty directory (no .env) with exactly `env`. */
async function deploy(
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'deploy-'));
  return new Promise((resolve) => {
    execFile(
      tsx,
      [script],
      { cwd: dir, env: { PATH: process.env['PATH'] ?? '', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('npm run deploy-commands', () => {
  it('GIVEN DISCORD_GUILD_ID THEN the command list is registered in that server and it says so', async () => {
    discord = await startFakeDiscord();
    const result = await deploy({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_ID: discord.guild.id,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Registered 7 commands for server ${discord.guild.id}`);
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('search');
    expect(discord.registeredCommands()).toEqual([]);
    expect(discord.violations).toEqual([]);
  }, 30_000);

  it('GIVEN a refused token THEN it exits non-zero with a clear message and no token in it', async () => {
    discord = await startFakeDiscord();
    const token = 'MTA5.wrong-token-value.zzz';
    const result = await deploy({ DISCORD_TOKEN: token, DISCORD_API_URL: discord.apiUrl });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Could not register the commands/);
    expect(result.stderr + result.stdout).not.toContain(token);
  }, 30_000);

  it('GIVEN no token THEN it exits non-zero naming where to get one', async () => {
    const result = await deploy({});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Bot → Reset Token');
  }, 30_000);
});
