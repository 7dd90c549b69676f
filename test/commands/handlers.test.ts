/**
 * The features as functions: each handler returns what to send, so its behaviour is tested here without the
 * local Discord (the e2e suites still prove the same through it). Real context, the local Philomena.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../src/discord/contract.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { refusalOf } from '../../src/discord/preconditions.js';
import { IDS } from '../fakes/philomena/index.js';
import {
  fakeInteraction,
  startCommandBed,
  type CommandBed,
  type FakeInteraction,
} from '../support/commands.js';

let bed: CommandBed;
beforeAll(async () => {
  bed = await startCommandBed();
});
afterAll(async () => {
  await bed.close();
});

async function run(interaction: FakeInteraction): Promise<Reply> {
  const command = bed.features.commands.find(
    (c) => c.kind === 'chat' && c.data.name === interaction.commandName,
  );
  if (command?.kind !== 'chat') throw new Error(`no command ${interaction.commandName}`);
  // What the runtime checks before it runs a command (src/discord/preconditions.ts).
  const refused = refusalOf(interaction, command.requires);
  if (refused !== undefined) throw refused;
  return command.execute(interaction as never, await bed.context(interaction));
}

function embedOf(reply: Reply) {
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  const embed = reply.body.embeds?.[0];
  if (embed === undefined) throw new Error('no embed');
  return embed;
}

describe('/image as a function', () => {
  it.each([
    ['a safe image in a plain channel', IDS.safe, 'plain', true],
    ['an explicit image in a plain channel', IDS.explicit, 'plain', false],
    ['a suggestive image in an age-restricted channel', IDS.suggestive, 'ageRestricted', true],
    ['a suggestive image in a plain channel', IDS.suggestive, 'plain', false],
    // The site's default filter (what the board applies without a server filter) hides explicit images.
    ['an explicit image in an age-restricted channel, default filter', IDS.explicit, 'ageRestricted', false],
    ['an explicit image in a DM', IDS.explicit, 'dm', false],
  ] as const)(
    'GIVEN %s THEN a card, with a picture only where the rating rule allows',
    async (_name, id, where, picture) => {
      const reply = await run(fakeInteraction('image', { id: String(id) }, where));
      const embed = embedOf(reply);
      expect(embed.title).toBe(`#${id}`);
      expect(embed.url).toBe(`${bed.booru.url}/images/${id}`);
      expect(embed.image !== undefined).toBe(picture);
      expect(embed.fields?.some((field) => field.name === 'Credit')).toBe(true);
    },
  );

  it('GIVEN text that is neither an id nor a link THEN a UserFacingError, and nothing is sent by the handler', async () => {
    await expect(run(fakeInteraction('image', { id: 'not an image' }))).rejects.toBeInstanceOf(
      UserFacingError,
    );
  });
});

describe('/featured and /settings as functions', () => {
  it('GIVEN /featured THEN the featured image card', async () => {
    expect(embedOf(await run(fakeInteraction('featured', {}))).title).toBe(`#${IDS.featured}`);
  });

  it('GIVEN /settings in a DM THEN refused: settings belong to a server', async () => {
    await expect(
      run(fakeInteraction('settings', {}, 'dm', { subcommand: 'show', manageServer: true })),
    ).rejects.toThrow(/belong to a server/);
    await expect(
      run(fakeInteraction('settings', {}, 'dm', { subcommand: 'show', manageServer: true })),
    ).rejects.toMatchObject({ id: 'settings.server-only' });
  });

  it('GIVEN /settings show by a member without Manage Server THEN refused', async () => {
    await expect(run(fakeInteraction('settings', {}, 'plain', { subcommand: 'show' }))).rejects.toThrow(
      /Manage Server/,
    );
    await expect(run(fakeInteraction('settings', {}, 'plain', { subcommand: 'show' }))).rejects.toMatchObject(
      {
        id: 'settings.manage-server',
      },
    );
  });

  it('GIVEN /settings show by an admin THEN a private-style text reply naming the site', async () => {
    const reply = await run(
      fakeInteraction('settings', {}, 'plain', { subcommand: 'show', manageServer: true }),
    );
    expect(reply.kind).toBe('message');
    if (reply.kind === 'message') expect(reply.body.content).toMatch(/^Site: /);
  });
});

describe('/search as a function', () => {
  it('GIVEN a search with results THEN the first card with paging buttons; with none THEN the no-results line', async () => {
    const found = await run(fakeInteraction('search', { query: 'pony' }));
    expect(found.kind === 'message' && (found.body.components?.length ?? 0) > 0).toBe(true);
    const none = await run(fakeInteraction('search', { query: 'zzz-no-such-tag-anywhere' }));
    expect(none.kind === 'message' && none.body.content).toMatch(/No images matched/);
  });
});
