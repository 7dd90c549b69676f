/**
 * The bound of a layer's tag list (merging refuses past it and changes nothing) and the presets' shape:
 * lowercase ids and tag names as the board writes them, no repeats, sets that fit a list together.
 */
import { describe, expect, it } from 'vitest';
import { TAG_LIST_MAX, mergeTagList, removeFromTagList } from '../../../commands/shared/tag-lists.js';
import { TAG_PRESETS, tagPreset } from '../../../commands/shared/tag-presets.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { normaliseTagName } from '../../../src/render/content-rules.js';
import { RATINGS } from '../../../src/philomena/tags.js';

const full = (size: number): string[] => Array.from({ length: size }, (_, i) => `tag ${i}`);

describe('mergeTagList', () => {
  it('GIVEN new names in any case THEN they are appended normalised, each once, and the ones already kept are reported', () => {
    const change = mergeTagList(['gore', 'ai generated'], [' Gore ', 'GUTS', 'guts', 'blood  stains', '']);
    expect(change).toEqual({
      list: ['gore', 'ai generated', 'guts', 'blood stains'],
      changed: ['guts', 'blood stains'],
      unchanged: ['gore'],
    });
  });

  it(`GIVEN a list of ${TAG_LIST_MAX - 1} THEN one more fits, and the list is then full`, () => {
    const change = mergeTagList(full(TAG_LIST_MAX - 1), ['last one']);
    expect(change.list).toHaveLength(TAG_LIST_MAX);
  });

  it(`GIVEN a merge that would pass ${TAG_LIST_MAX} THEN it is refused with the limit said, and the list is untouched`, () => {
    const list = full(TAG_LIST_MAX - 1);
    const before = [...list];
    const error = (() => {
      try {
        mergeTagList(list, ['one', 'two']);
        return undefined;
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UserFacingError);
    expect(error).toMatchObject({
      id: 'tags.list-full',
      message: expect.stringContaining(`at most ${TAG_LIST_MAX} tags`),
      params: { max: TAG_LIST_MAX, size: TAG_LIST_MAX - 1, adding: 2 },
    });
    expect(list).toEqual(before);
  });

  it('GIVEN a full list and names it already holds THEN the merge is no change, not a refusal', () => {
    const list = full(TAG_LIST_MAX);
    const change = mergeTagList(list, ['TAG 3', 'tag 7']);
    expect(change).toEqual({ list, changed: [], unchanged: ['tag 3', 'tag 7'] });
  });

  it('GIVEN a smaller bound THEN that bound is the one said', () => {
    expect(() => mergeTagList(['a'], ['b', 'c'], 2)).toThrow(/at most 2 tags: this one has 1/);
  });
});

describe('removeFromTagList', () => {
  it('GIVEN names in any case THEN those kept are removed and the others reported', () => {
    expect(removeFromTagList(['gore', 'guts', 'blood'], ['GUTS', ' nope '])).toEqual({
      list: ['gore', 'blood'],
      changed: ['guts'],
      unchanged: ['nope'],
    });
  });
});

describe('TAG_PRESETS', () => {
  it('GIVEN the presets THEN no-ai and no-gore are among them, ids unique and made of lowercase words and dashes', () => {
    const ids = TAG_PRESETS.map((preset) => preset.id);
    expect(ids).toEqual(expect.arrayContaining(['no-ai', 'no-gore']));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
  });

  it('GIVEN each preset THEN its tags are written as the board writes them, each once, and it says what and why', () => {
    for (const preset of TAG_PRESETS) {
      expect(preset.tags.length, preset.id).toBeGreaterThan(0);
      for (const tag of preset.tags) expect(normaliseTagName(tag), preset.id).toBe(tag);
      expect(new Set(preset.tags).size, preset.id).toBe(preset.tags.length);
      for (const tag of preset.tags) expect(tag, preset.id).not.toMatch(/[*?",]|:$/);
      expect(preset.title.length, preset.id).toBeGreaterThan(0);
      // A slash command choice's name holds at most 100 characters.
      expect(preset.description.length, preset.id).toBeLessThanOrEqual(100);
      expect(preset.reason.length, preset.id).toBeGreaterThan(preset.description.length);
    }
  });

  it('GIVEN the presets THEN none hides safe or the sexual ratings (a preset is about a theme, not all of a rating)', () => {
    const ratings: ReadonlySet<string> = new Set(RATINGS);
    const allowed = new Set(['semi-grimdark', 'grimdark', 'grotesque']);
    for (const preset of TAG_PRESETS) {
      for (const tag of preset.tags) {
        if (ratings.has(tag)) expect(allowed.has(tag), `${preset.id}: ${tag}`).toBe(true);
      }
    }
  });

  it('GIVEN the research sets THEN no-ai and no-gore hold them', () => {
    expect(tagPreset('no-ai')?.tags).toEqual(
      expect.arrayContaining([
        'ai content',
        'ai generated',
        'ai assisted',
        'ai composition',
        'ai interpretation',
        'ai reference',
        'machine learning generated',
        'machine learning assisted',
      ]),
    );
    expect(tagPreset('no-gore')?.tags).toEqual(
      expect.arrayContaining(['gore', 'grotesque', 'guts', 'dismemberment', 'decapitation']),
    );
    expect(tagPreset('no-ai')?.tags).not.toContain('ai voice');
    expect(tagPreset('no-gore')?.tags).not.toContain('candy gore');
  });

  it('GIVEN every preset merged into one list THEN shared tags count once and the list stays far inside its bound', () => {
    const change = TAG_PRESETS.reduce<readonly string[]>(
      (list, preset) => mergeTagList(list, preset.tags).list,
      [],
    );
    const union = new Set(TAG_PRESETS.flatMap((preset) => preset.tags));
    expect(change).toHaveLength(union.size);
    expect(union.size).toBeLessThan(TAG_LIST_MAX / 4);
  });

  it('GIVEN an id typed in another case or with blanks THEN it is found; an unknown id THEN undefined', () => {
    expect(tagPreset(' No-AI ')?.id).toBe('no-ai');
    expect(tagPreset('no-such-preset')).toBeUndefined();
  });
});
