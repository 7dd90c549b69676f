import { afterEach, describe, expect, it } from 'vitest';
import { IDS } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('smoke', () => {
  it('GIVEN the bot started THEN commands are registered and /image answers with a card', async () => {
    h = await startHarness();
    expect(
      h.discord
        .registeredCommands()
        .map((c) => c.name)
        .sort(),
    ).toEqual(
      [
        'Find source',
        'Show card',
        'featured',
        'feed',
        'gallery',
        'comments',
        'forum',
        'image',
        'me',
        'reverse',
        'search',
        'settings',
        'tag',
        'upload',
        'Upload to board',
      ].sort(),
    );
    const slash = h.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.safe) },
      channel: 'plain',
    });
    const reply = await slash.finalReply();
    expect(reply.embeds).toHaveLength(1);
    expectNoDiscordProblems(h.discord);
  });
});
