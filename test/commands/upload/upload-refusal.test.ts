/**
 * The board's refusals of an upload as sentences (commands/upload/upload-refusal.ts), for every field and
 * message the board answers (docs/board-behaviour.md "Uploads"; the local board's upload-rules.ts), in both
 * wordings: never a raw field name or board message, one generic sentence for what is not known.
 */
import { describe, expect, it } from 'vitest';
import { refusalLines } from '../../../commands/upload/upload-refusal.js';
import { sayEnglish, sayIn } from '../../../commands/shared/say.js';
import { resolveSite } from '../../../src/philomena/sites.js';

const site = resolveSite('https://booru.example');
const ANALYSED = [
  'image',
  'image_width',
  'image_height',
  'image_size',
  'image_orig_size',
  'image_format',
  'image_mime_type',
  'image_aspect_ratio',
  'image_duration',
  'image_orig_sha512_hash',
  'image_sha512_hash',
  'uploaded_image',
  'image_is_animated',
];
const UNREADABLE = 'contents corrupt, not recognized, or dimensions are too large to process';

/** Every analysed field blank (the newer wording's unfetched or unreadable file), `mime` for the type. */
function blankFile(mime?: string): Record<string, string[]> {
  const errors: Record<string, string[]> = Object.fromEntries(ANALYSED.map((f) => [f, ["can't be blank"]]));
  if (mime !== undefined) errors['image_mime_type'] = [`(${mime}) is invalid`];
  errors['image']?.push(UNREADABLE);
  return errors;
}

const lines = (errors: Record<string, string[]>, duplicate = false, duplicateOf?: number) =>
  refusalLines({ ok: false, errors, duplicate, duplicateOf }, site, sayEnglish);

describe('refusalLines', () => {
  it('GIVEN a duplicate in the older wording THEN "already on the site", with no link', () => {
    expect(lines({ image_orig_sha512_hash: ['has already been taken'] }, true)).toEqual([
      'This picture is already on booru.example.',
    ]);
  });

  it('GIVEN a duplicate in the newer wording THEN "already on the site" with the image’s link', () => {
    expect(lines({ image: ["has already been uploaded: it's image 77"] }, true, 77)).toEqual([
      'This picture is already on booru.example: <https://booru.example/images/77>',
    ]);
  });

  it('GIVEN a file too large THEN its limit in MB', () => {
    expect(lines({ image_size: ['must be less than or equal to 131072000'] })).toEqual([
      'The file is too large: the site takes at most 125 MB.',
    ]);
  });

  it('GIVEN a type the board refuses, in either wording THEN "not a picture or video the site takes"', () => {
    const unsupported = 'The link does not lead to a picture or video the site takes.';
    expect(lines({ image_mime_type: ['is invalid'], image_format: ['is invalid'] })).toEqual([unsupported]);
    expect(lines(blankFile('text/plain'))).toEqual([unsupported]);
  });

  it('GIVEN nothing fetched, in either wording THEN "could not fetch the picture from that link"', () => {
    const line = /could not fetch the picture from that link/;
    const older = lines({ image: ["can't be blank"] });
    const newer = lines(blankFile());
    for (const said of [older, newer]) {
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(line);
    }
  });

  it('GIVEN a file the board could not read THEN "could not read the file"', () => {
    expect(lines({ image: [UNREADABLE] })).toEqual([
      'The site could not read the file: it may be damaged or too large to process.',
    ]);
  });

  it('GIVEN every tag rule broken and the other fields THEN one sentence each, the file first, never a field name', () => {
    const said = lines({
      ...blankFile(),
      tag_input: [
        'must contain at least 5 tags',
        'must contain at least one rating tag',
        'may not contain any other rating if safe',
        'may contain at most one sexual rating',
        'may contain at most one grim rating',
      ],
      source_url: ['has invalid format'],
      description: ['should be at most 50000 byte(s)'],
      image_name: ['should be at most 255 byte(s)'],
    });
    expect(said).toEqual([
      expect.stringMatching(/could not fetch/),
      'Add more tags: the site asks for at least 5 tags.',
      'Add a rating tag (safe, suggestive, questionable, explicit, semi-grimdark, grimdark or grotesque).',
      '`safe` cannot go with another rating tag.',
      'Use only one of suggestive, questionable and explicit.',
      'Use only one of semi-grimdark and grimdark.',
      'The source must be a web address starting with https://.',
      'The description is too long: the site takes at most 50,000 bytes.',
      "The file's name is too long: rename it and try again.",
    ]);
    expect(said.join(' ')).not.toMatch(/tag_input|source_url|image_|can't be blank|has invalid format/);
  });

  it('GIVEN a field or message nobody knows THEN one generic sentence naming no field', () => {
    const said = lines({ anonymous: ['is invalid'], weird_field: ['boom'] });
    expect(said).toEqual(['Something else about the upload was not right: check it on the site.']);
    expect(lines({ tag_input: ['has a tag that is not allowed'] })).toEqual([
      'The site did not take the tags as given.',
    ]);
    expect(lines({})).toEqual(['Something else about the upload was not right: check it on the site.']);
  });

  it('GIVEN another language THEN the sentences are in it', () => {
    const said = refusalLines(
      {
        ok: false,
        errors: { image_orig_sha512_hash: ['has already been taken'] },
        duplicate: true,
        duplicateOf: undefined,
      },
      site,
      sayIn('de'),
    );
    expect(said).toEqual(['Dieses Bild ist schon auf booru.example.']);
  });
});
