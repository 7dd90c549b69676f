/**
 * The registration with its localisations, against the local Discord: it takes every command in every
 * shipped language, and refuses what real Discord refuses in a localisation (issue 21): an uppercase or
 * 33-character name, the apostrophe, two sibling options named alike in one locale, a locale that is not
 * Discord's, a description on a message menu.
 */
import { DiscordAPIError, REST, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allCommands } from '../../commands/index.js';
import { commandBodies, registerCommands } from '../../src/discord/registration.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';

let discord: FakeDiscord | undefined;
afterEach(async () => {
  await discord?.close();
  discord = undefined;
});

const restOf = (f: FakeDiscord): REST => new REST({ api: f.apiUrl, retries: 0 }).setToken(f.token);

const bodySchema = z.array(z.record(z.string(), z.unknown()));

/** The bodies as sent, with `change` applied to the one named `name` (a copy: the list stays as built). */
function withChange(
  name: string,
  change: (body: Record<string, unknown>) => void,
): Record<string, unknown>[] {
  const bodies = bodySchema.parse(JSON.parse(JSON.stringify(commandBodies(allCommands()))));
  const body = bodies.find((candidate) => candidate['name'] === name);
  if (body === undefined) throw new Error(`no command ${name}`);
  change(body);
  return bodies;
}

/** What Discord answered a bulk overwrite with `bodies`: 'accepted', or the status, code and error body. */
async function refusal(f: FakeDiscord, bodies: readonly unknown[]): Promise<string> {
  try {
    await restOf(f).put(Routes.applicationCommands(f.applicationId), { body: bodies });
  } catch (error) {
    if (error instanceof DiscordAPIError) {
      return `${error.status} ${String(error.code)} ${JSON.stringify(error.rawError)}`;
    }
    throw error;
  }
  return 'accepted';
}

describe('registration with localisations', () => {
  it('GIVEN every command in every shipped language THEN the local Discord takes the registration and keeps the localisations', async () => {
    discord = await startFakeDiscord();
    const bodies = commandBodies(allCommands());
    const count = await registerCommands({
      rest: restOf(discord),
      applicationId: discord.applicationId,
      bodies,
    });
    expect(count).toBe(bodies.length);
    const stored = discord.registeredCommands().find((command) => command.name === 'settings');
    expect(stored?.['name_localizations']).toMatchObject({
      de: 'einstellungen',
      ru: 'настройки',
      'es-419': 'ajustes',
    });
    expectNoDiscordProblems(discord);
  });

  const options = (body: Record<string, unknown>): Record<string, unknown>[] => {
    const list = body['options'];
    if (!Array.isArray(list)) throw new Error('no options');
    return list.filter(
      (option): option is Record<string, unknown> => typeof option === 'object' && option !== null,
    );
  };

  const bad: readonly [string, () => Record<string, unknown>[], string][] = [
    [
      'an uppercase name',
      () => withChange('image', (b) => void (b['name_localizations'] = { de: 'Bild' })),
      'APPLICATION_COMMAND_INVALID_NAME',
    ],
    [
      'a 33-character name',
      () => withChange('image', (b) => void (b['name_localizations'] = { de: 'b'.repeat(33) })),
      'BASE_TYPE_MAX_LENGTH',
    ],
    [
      'an apostrophe',
      () => withChange('image', (b) => void (b['name_localizations'] = { fr: "l'image" })),
      'APPLICATION_COMMAND_INVALID_NAME',
    ],
    [
      'two sibling options named alike',
      () =>
        withChange('search', (b) => {
          const [query, sort] = options(b);
          if (query === undefined || sort === undefined) throw new Error('search has query and sort');
          query['name_localizations'] = { pl: 'zapytanie' };
          sort['name_localizations'] = { pl: 'zapytanie' };
        }),
      'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
    ],
    [
      'a locale Discord does not have',
      () => withChange('image', (b) => void (b['name_localizations'] = { 'pt-PT': 'imagem' })),
      'BASE_TYPE_CHOICES',
    ],
    [
      'a description on a message menu',
      () => withChange('Find source', (b) => void (b['description_localizations'] = { de: 'Quelle finden' })),
      'APPLICATION_COMMAND_INVALID_DESCRIPTION',
    ],
  ];

  for (const [what, bodies, code] of bad) {
    it(`GIVEN ${what} in a localisation THEN the local Discord refuses the registration (${code})`, async () => {
      discord = await startFakeDiscord();
      const answer = await refusal(discord, bodies());
      expect(answer).toMatch(/^400 50035 /);
      expect(answer).toContain(code);
      expect(discord.registeredCommands()).toEqual([]);
    });
  }

  it('GIVEN a message menu name with capitals and a space in a localisation THEN the local Discord takes it', async () => {
    discord = await startFakeDiscord();
    const bodies = withChange('Show card', (b) => void (b['name_localizations'] = { de: 'Karte Zeigen' }));
    expect(await refusal(discord, bodies)).toBe('accepted');
    expectNoDiscordProblems(discord);
  });
});
