/** A minimal visible image for unit tests of the renderers and the safety rules, parsed like a board answer. */
import { visibleImageSchema, type VisibleImage } from '../../src/philomena/schemas.js';

const REPRESENTATIONS = ['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny'];

/**
 * The board's JSON of an image carrying `tags`, before parsing; `fields` override any field;
 * representations are `${files}/<name>.png`. Tag ids are the tags' positions (the board builds `tags` and
 * `tag_ids` from one list). It leaves `spoilered` out unless `fields` set it.
 */
export function testImageJson(
  tags: readonly string[],
  fields: Record<string, unknown> = {},
  files = 'https://cdn.test',
): Record<string, unknown> {
  return {
    id: 1,
    hidden_from_users: false,
    aspect_ratio: 1,
    comment_count: 0,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    first_seen_at: '2024-01-01T00:00:00Z',
    downvotes: 0,
    upvotes: 0,
    score: 0,
    faves: 0,
    format: 'png',
    width: 1,
    height: 1,
    mime_type: 'image/png',
    representations: Object.fromEntries(REPRESENTATIONS.map((name) => [name, `${files}/${name}.png`])),
    tag_count: tags.length,
    tag_ids: tags.map((_, i) => i),
    tags: [...tags],
    thumbnails_generated: true,
    view_url: `${files}/v.png`,
    wilson_score: 0,
    ...fields,
  };
}

/** `testImageJson` parsed as the client parses a board answer. */
export function testImage(
  tags: readonly string[],
  fields: Record<string, unknown> = {},
  files = 'https://cdn.test',
): VisibleImage {
  return visibleImageSchema.parse(testImageJson(tags, fields, files));
}
