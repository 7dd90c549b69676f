/**
 * The local board's tags for the layers' tag lists and their presets (commands/shared/tag-lists.ts,
 * tag-presets.ts): the presets' tags that are not rating tags (those are in data.ts already), an alias in
 * each preset family, and names close to them for suggestions. No image carries them, so image counts and
 * image searches are unchanged. `ai generated` is not here: an image carries it, so data.ts makes it
 * (with the id the other tests have always seen).
 *
 * The aliases follow Derpibooru's renames: `machine learning generated` and `machine learning assisted`
 * became aliases when the AI tags were renamed (they stay in the preset for boards that kept the old names).
 */
import type { TagRecord } from './data.js';

type MakeTag = (id: number, name: string, extra?: Partial<TagRecord>) => TagRecord;

export function ruleTags(make: MakeTag): TagRecord[] {
  const origin = (id: number, name: string, shortDescription: string): TagRecord =>
    make(id, name, { category: 'origin', shortDescription });
  const alias = (id: number, name: string, target: string): TagRecord =>
    make(id, name, { category: null, aliasOf: target });
  return [
    origin(95001, 'ai content', "Made or aided by AI image generators: includes 'ai generated'."),
    origin(95003, 'ai assisted', 'Human-made with parts from an AI image generator.'),
    make(95004, 'ai composition', { shortDescription: 'The composition came from an AI generator.' }),
    make(95005, 'ai interpretation', { shortDescription: 'An AI generator redrew an existing work.' }),
    make(95006, 'ai reference', { shortDescription: 'Drawn with an AI-generated image as reference.' }),
    alias(95007, 'ai art', 'ai generated'),
    alias(95008, 'machine learning generated', 'ai generated'),
    alias(95009, 'machine learning assisted', 'ai assisted'),
    make(95010, 'gore', { shortDescription: 'Graphic violence: blood and guts.' }),
    make(95011, 'guts', { shortDescription: 'Visible entrails.' }),
    make(95012, 'dismemberment', { shortDescription: 'Severed limbs.' }),
    make(95013, 'decapitation', { shortDescription: 'A severed head.' }),
    alias(95014, 'gory', 'gore'),
    // Not in any preset (too broad): a near-miss the suggestions offer for `gor…` and `blo…`.
    make(95015, 'gorgeous', { shortDescription: 'Very beautiful.' }),
    make(95016, 'blood', { shortDescription: 'Blood, from a scratch to worse.' }),
    alias(95017, 'grimdark content', 'grimdark'),
  ];
}
