/**
 * Presets: documented tag sets for what communities most often ask to keep out, added to a layer's hidden
 * list in one go (`/settings tags preset`, the panel). Their tags are not checked with the board: a board
 * that does not know one has no image carrying it, so it costs nothing and guards the boards that do.
 *
 * The sets come from the boards' own tagging (Derpibooru's policy posts and tag pages, the Philomena rating
 * texts) and the tags other bots exclude; names marked unconfirmed in the research are kept because a
 * wrong name hides nothing, while a missing one lets images through. What each set leaves out, and why,
 * is said in its `reason`, which the README repeats.
 */

export interface TagPreset {
  /** What an admin types or picks: lowercase words joined by dashes. */
  readonly id: string;
  /** What the panel and the answers call it. */
  readonly title: string;
  /** One line for a choice list (at most 100 characters: Discord's choice name). */
  readonly description: string;
  /** Why these tags, and what is deliberately left out. */
  readonly reason: string;
  /** Tag names as the board writes them (lowercase, one space between words). */
  readonly tags: readonly string[];
}

const NO_AI: TagPreset = {
  id: 'no-ai',
  title: 'No AI-generated content',
  description: 'Hides images made or assisted by AI image generators.',
  reason:
    'Derpibooru tags AI work `ai content` (the umbrella), `ai generated`, `ai assisted`, `ai composition`, ' +
    '`ai interpretation` and `ai reference`; before the rename it used "machine learning" names, which ' +
    'other Philomena boards may still carry. `ai voice` is left out: the picture itself is human-made. ' +
    'On Tantabus every image is AI-generated, so this preset hides the whole site there.',
  tags: [
    'ai content',
    'ai generated',
    'ai assisted',
    'ai composition',
    'ai interpretation',
    'ai reference',
    'machine learning generated',
    'machine learning assisted',
  ],
};

const NO_GORE: TagPreset = {
  id: 'no-gore',
  title: 'No gore',
  description: 'Hides gore: blood and guts, dismemberment, decapitation, the grotesque rating.',
  reason:
    '`grotesque` is the rating every Philomena board gives "obscene degrees of violence or putrescent ' +
    'material"; `gore`, `guts`, `dismemberment` and `decapitation` mark it at any rating. `blood` is left ' +
    'out (nosebleeds and scratches carry it too), and so is `candy gore` (cartoon gore made of sweets).',
  tags: ['gore', 'grotesque', 'guts', 'dismemberment', 'decapitation'],
};

const NO_GRIMDARK: TagPreset = {
  id: 'no-grimdark',
  title: 'No dark content',
  description: 'Hides the dark ratings: semi-grimdark, grimdark and grotesque.',
  reason:
    'The dark ratings are tags on Philomena boards: `semi-grimdark` (somewhat dark), `grimdark` (dark, ' +
    'disturbing) and `grotesque` (gore and body horror). A board filter can hide them too; this preset keeps ' +
    "them out whatever filter a channel uses, and it is the server's own choice, not the board's.",
  tags: ['semi-grimdark', 'grimdark', 'grotesque'],
};

/** Every preset, in the order the commands and the README list them. */
export const TAG_PRESETS: readonly TagPreset[] = [NO_AI, NO_GORE, NO_GRIMDARK];

/** The preset with this id (as typed: trimmed, any case), or undefined. */
export function tagPreset(id: string): TagPreset | undefined {
  const wanted = id.trim().toLowerCase();
  return TAG_PRESETS.find((preset) => preset.id === wanted);
}
