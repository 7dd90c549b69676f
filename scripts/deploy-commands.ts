/**
 * `npm run deploy-commands`: registers the command list with Discord, for every server or, with
 * DISCORD_GUILD_ID, for one server (instant; for development). Exits non-zero with a clear message when
 * anything fails.
 */
import { existsSync } from 'node:fs';
import { DiscordAPIError, REST, Routes } from 'discord.js';
import { z } from 'zod';
import { allCommands } from '../commands/index.js';
import { commandBodies, registerCommands } from '../src/discord/registration.js';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { createRedactor } from '../src/redact.js';

const applicationSchema = z.object({ id: z.string() });

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const scrub = createRedactor([config.discordToken, config.booruApiKey]);
  const rest = new REST(config.discordApiUrl === undefined ? {} : { api: config.discordApiUrl }).setToken(
    config.discordToken,
  );
  try {
    const applicationId =
      config.discordApplicationId ?? applicationSchema.parse(await rest.get(Routes.currentApplication())).id;
    const bodies = commandBodies(allCommands({ defaultSite: config.site }));
    const count = await registerCommands({ rest, applicationId, guildId: config.discordGuildId, bodies });
    console.log(
      config.discordGuildId === undefined
        ? `Registered ${count} commands for every server (they may take a few minutes to appear).`
        : `Registered ${count} commands for server ${config.discordGuildId}.`,
    );
    return 0;
  } catch (error) {
    const status = error instanceof DiscordAPIError ? error.status : undefined;
    const hint =
      status === 401
        ? ' DISCORD_TOKEN was refused: reset it in the Developer Portal → your application → Bot.'
        : status === 403 || status === 404
          ? ' Check DISCORD_APPLICATION_ID and DISCORD_GUILD_ID, and that the bot is in that server with the applications.commands scope.'
          : '';
    const message = error instanceof Error ? error.message : String(error);
    console.error(scrub(`Could not register the commands: ${message}.${hint}`));
    return 1;
  }
}

process.exitCode = await main();
