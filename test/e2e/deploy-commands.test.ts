import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { runDeployCommands as deploy } from '../support/deploy-script.js';

let discord: FakeDiscord | undefined;
afterEach(async () => {
  await discord?.close();
  discord = undefined;
});

describe('npm run deploy-commands', () => {
  it('GIVEN DISCORD_GUILD_ID THEN the command list is registered in that server and it says so', async () => {
    discord = await startFakeDiscord();
    const result = await deploy({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_ID: discord.guild.id,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Registered 15 commands for server ${discord.guild.id}`);
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('search');
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('me');
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('gallery');
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('comments');
    expect(discord.registeredCommands(discord.guild.id).map((c) => c.name)).toContain('forum');
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
