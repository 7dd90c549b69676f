/**
 * `npm run deploy-commands` without DISCORD_GUILD_ID: global registration (the guild variant is in
 * deploy-commands.test.ts). The script runs as a child process, in an empty directory (no .env), against
 * the local Discord.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { runDeployCommands } from '../support/deploy-script.js';

let discord: FakeDiscord | undefined;
afterEach(async () => {
  if (discord) {
    expectNoDiscordProblems(discord);
    await discord.close();
  }
  discord = undefined;
});

const deploy = (env: Record<string, string>) => runDeployCommands(env, { timeoutMs: 25_000 });

const names = () => allCommands().map((command) => command.data.name);

describe('npm run deploy-commands, global', () => {
  it('GIVEN no DISCORD_GUILD_ID and no application id THEN it learns the id from Discord, registers every command globally, and says so', async () => {
    discord = await startFakeDiscord();
    const result = await deploy({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl });
    expect(result.stderr).not.toMatch(/Could not register/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(
      `Registered ${names().length} commands for every server (they may take a few minutes to appear).`,
    );
    expect(
      discord
        .registeredCommands()
        .map((c) => c.name)
        .sort(),
    ).toEqual(names().sort());
    expect(discord.registeredCommands(discord.guild.id)).toEqual([]);
    const calls = discord.requests.map((r) => `${r.method} ${r.route}`);
    expect(calls).toContain('GET /applications/@me');
    expect(calls).toContain('PUT /applications/:app/commands');
    expect(discord.requests.find((r) => r.method === 'PUT')?.path).toBe(
      `/applications/${discord.applicationId}/commands`,
    );
    expect(result.stdout + result.stderr).not.toContain(discord.token);
  }, 30_000);

  it('GIVEN DISCORD_APPLICATION_ID and a second run THEN Discord is not asked for the id and the list is replaced, not doubled', async () => {
    discord = await startFakeDiscord();
    const env = {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_APPLICATION_ID: discord.applicationId,
    };
    const first = await deploy(env);
    const second = await deploy(env);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toMatch(/commands for every server/);
    expect(discord.registeredCommands()).toHaveLength(names().length);
    expect(discord.requests.filter((r) => r.route === '/applications/@me')).toEqual([]);
    expect(
      discord.requests.filter((r) => r.method === 'PUT' && r.route === '/applications/:app/commands'),
    ).toHaveLength(2);
  }, 30_000);
});
