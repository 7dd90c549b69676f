/**
 * `/settings tags hide|spoiler|unhide|preset` through the local Discord and the local board (issue 20 §1):
 * names are checked with the board (an alias stored as its target and said so; an unknown name refused
 * with suggestions; nothing written when not one name is a tag), a tag moves between the hidden and the
 * spoilered list, the 200-tag bound is said (`tags.list-full`) and nothing is written past it, presets add
 * their documented sets, for the server and for one channel (`channel:`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TAG_PRESETS } from '../../commands/shared/tag-presets.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { settings, storedRecord, tags, writeRecord } from '../support/settings.js';

let h: Harness;
let guildId: string;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  guildId = h.discord.guild.id;
});
afterAll(async () => {
  expectNoDiscordProblems(h.discord);
  await h.close();
});
beforeEach(async () => {
  await writeRecord(h, guildId, { siteId: undefined, filters: {} });
});

const EPHEMERAL = 1 << 6;

function presetTags(id: string): readonly string[] {
  const preset = TAG_PRESETS.find((p) => p.id === id);
  if (preset === undefined) throw new Error(`no preset ${id}`);
  return preset.tags;
}

describe('names checked with the board', () => {
  it('GIVEN /settings tags hide with a tag and an alias THEN both are stored as the board names them, the alias is said, and the answer is private', async () => {
    const reply = await tags(h, 'hide', 'Gore, ai art');
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toContain('Hidden in this server: `gore`, `ai generated`.');
    expect(reply.content).toContain('`ai art` is an alias: stored as `ai generated`.');
    expect(reply.content).toContain('Now 2 hidden and 0 spoilered (at most 200 each).');
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(['gore', 'ai generated']);
  });

  it('GIVEN an unknown name beside a tag THEN the tag is stored and the unknown name is refused with suggestions', async () => {
    const reply = await tags(h, 'hide', 'gorgeou, blood');
    expect(reply.content).toContain('Hidden in this server: `blood`.');
    expect(reply.content).toMatch(/`gorgeou` is not a tag on .*\. Did you mean `gorgeous`\?/);
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(['blood']);
  });

  it('GIVEN only names that are not tags THEN nothing is written and the answer says so, with suggestions', async () => {
    await tags(h, 'hide', 'blood');
    const reply = await tags(h, 'spoiler', 'gorgeou, not a tag at all, gore*');
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toMatch(/^Nothing was changed: none of those is a tag\./);
    expect(reply.content).toContain('Did you mean `gorgeous`?');
    expect(reply.content).toContain('`gore*` has a wildcard');
    const record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toEqual(['blood']);
    expect(record.spoileredTags).toBeUndefined();
  });
});

describe('the two lists of a layer', () => {
  it('GIVEN a hidden tag put behind a spoiler THEN it moves to the spoilered list, and back; unhide takes it out of both', async () => {
    await tags(h, 'hide', 'gore, blood');
    const spoiler = await tags(h, 'spoiler', 'gore');
    expect(spoiler.content).toContain('Behind a spoiler in this server: `gore`.');
    expect(spoiler.content).toContain('Now 1 hidden and 1 spoilered');
    let record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toEqual(['blood']);
    expect(record.spoileredTags).toEqual(['gore']);

    const hide = await tags(h, 'hide', 'gore');
    expect(hide.content).toContain('Hidden in this server: `gore`.');
    record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toEqual(['blood', 'gore']);
    expect(record.spoileredTags).toBeUndefined();

    const again = await tags(h, 'hide', 'gore');
    expect(again.content).toContain('Nothing was changed in this server.');
    expect(again.content).toContain('Already hidden: `gore`.');

    const unhide = await tags(h, 'unhide', 'gore, blood, guts');
    expect(unhide.content).toContain('No longer hidden or spoilered in this server: `gore`, `blood`.');
    expect(unhide.content).toContain('Not in the lists: `guts`.');
    record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toBeUndefined();
  });

  it('GIVEN a tag hidden by its alias THEN unhiding it by the same alias takes it out, and a stored name the board does not know is still taken out', async () => {
    await tags(h, 'hide', 'gory');
    await tags(h, 'spoiler', 'ai art');
    await writeRecord(h, guildId, {
      ...(await storedRecord(h, guildId)),
      hiddenTags: ['gore', 'a tag the board forgot'],
    });
    const reply = await tags(h, 'unhide', 'gory, ai art, a tag the board forgot');
    expect(reply.content).toContain(
      'No longer hidden or spoilered in this server: `gore`, `a tag the board forgot`, `ai generated`.',
    );
    expect(reply.content).toContain('`gory` is an alias: stored as `gore`.');
    const record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toBeUndefined();
    expect(record.spoileredTags).toBeUndefined();
  });

  it('GIVEN channel: THEN the channel gets its own lists and the server’s stay as they are', async () => {
    const { plain, ageRestricted } = h.discord.guild.channels;
    await tags(h, 'hide', 'blood');
    const reply = await tags(h, 'spoiler', 'gory', ageRestricted);
    expect(reply.content).toContain(`Behind a spoiler in <#${ageRestricted}>: \`gore\`.`);
    expect(reply.content).toContain('`gory` is an alias: stored as `gore`.');
    await tags(h, 'hide', 'guts', plain);
    const record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toEqual(['blood']);
    expect(record.spoileredTags).toBeUndefined();
    expect(record.channels?.[ageRestricted]).toEqual({ spoileredTags: ['gore'] });
    expect(record.channels?.[plain]).toEqual({ hiddenTags: ['guts'] });
    // Unhide in the channel leaves the server's list alone.
    await tags(h, 'unhide', 'blood, guts', plain);
    const after = await storedRecord(h, guildId);
    expect(after.hiddenTags).toEqual(['blood']);
    expect(after.channels?.[plain]).toBeUndefined();
  });
});

describe('the bound of 200 tags', () => {
  it('GIVEN a list of 200 tags THEN one more is refused, saying the bound, and nothing is written', async () => {
    const full = ['gore', ...Array.from({ length: 199 }, (_, i) => `filler ${i}`)];
    await writeRecord(h, guildId, { siteId: undefined, filters: {}, hiddenTags: full });
    const reply = await tags(h, 'hide', 'blood');
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toMatch(
      /A tag list holds at most 200 tags: this one has 200, and that would add 1 more/,
    );
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(full);
    // A preset is bounded the same way.
    const preset = await settings(h, { group: 'tags', subcommand: 'preset', options: { preset: 'no-ai' } });
    expect(preset.content).toMatch(/at most 200 tags/);
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(full);
    // Already-hidden tags are not "more": hiding one of them is answered, not refused.
    const already = await tags(h, 'hide', 'gory');
    expect(already.content).toContain('Already hidden');
  });
});

describe('presets', () => {
  it('GIVEN each preset THEN its documented set is added to the hidden list, said in the answer, for the server and for a channel', async () => {
    for (const preset of TAG_PRESETS) {
      await writeRecord(h, guildId, { siteId: undefined, filters: {} });
      const reply = await settings(h, {
        group: 'tags',
        subcommand: 'preset',
        options: { preset: preset.id },
      });
      expect(reply.content).toContain(`Preset **${preset.title}**`);
      expect(reply.content).toContain(`Now ${preset.tags.length} hidden`);
      expect((await storedRecord(h, guildId)).hiddenTags).toEqual(preset.tags);
    }
    const { forum } = h.discord.guild.channels;
    await tags(h, 'spoiler', 'gore', forum);
    const reply = await settings(h, {
      group: 'tags',
      subcommand: 'preset',
      options: { preset: 'no-gore', channel: forum },
    });
    expect(reply.content).toContain(`in <#${forum}>`);
    const own = (await storedRecord(h, guildId)).channels?.[forum];
    // `gore` moved from the channel's spoilered list to its hidden one with the rest of the set.
    expect(own?.hiddenTags).toEqual(presetTags('no-gore'));
    expect(own?.spoileredTags).toBeUndefined();
  });
});
