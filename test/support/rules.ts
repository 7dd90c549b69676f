/**
 * For the end-to-end tests of the rules in layers (test/e2e/rules-*.test.ts): images added to the local
 * board with their own tags and descriptions, the real commands that set the layers, and checks over
 * every body the local Discord received since a mark (JSON bodies and the names of uploaded files).
 */
import { expect } from 'vitest';
import type { ChannelTarget, RecordedMessage } from '../fakes/discord/index.js';
import { componentsOfType, galleryItemsOf, isComponentsV2 } from '../fakes/discord/v2.js';
import type { Harness } from './harness.js';
import { customIds, embedsOf } from './messages.js';

/** An image the tests add, and what of it must never show where a rule hides it. */
export interface RuleImage {
  readonly id: number;
  /** The tag a layer lists (only this image and no other carries it). */
  readonly tag: string;
  readonly description: string;
}

/** Adds a safe image (or `rating`) carrying `tag`, the common `zq rules` tag, an artist and a description. */
export function addRuleImage(h: Harness, tag: string, rating = 'safe'): RuleImage {
  const description = `zqdescription of the ${tag} picture`;
  const id = h.booru.addImage({
    tags: [rating, 'artist:rules artist', 'zq rules', tag],
    description,
    sourceUrls: ['https://source.example/rules'],
  });
  return { id, tag, description };
}

/** `/settings tags <action> tags:<names> [channel:]`, as the server's owner; the reply. */
export function settingsTags(
  h: Harness,
  action: 'hide' | 'unhide' | 'spoiler',
  tags: string,
  channel?: ChannelTarget,
): Promise<RecordedMessage> {
  return h.discord
    .sendCommand({
      name: 'settings',
      subcommandGroup: 'tags',
      subcommand: action,
      options: { tags, ...(channel === undefined ? {} : { channel: String(channel) }) },
      channel: 'plain',
      userId: h.discord.guild.ownerId,
    })
    .finalReply();
}

/** Index into `h.discord.requests`: what comes after it is what a surface sent. */
export const mark = (h: Harness): number => h.discord.requests.length;

/** Every body (and uploaded file name) Discord received since `from`, as one text. */
export function bodiesSince(h: Harness, from: number): string {
  return JSON.stringify(
    h.discord.requests.slice(from).map((request) => ({
      body: request.body,
      files: request.files.map((file) => file.filename),
    })),
  );
}

/** A picture of image `id` on the local board: `/img/Y/M/D/ID/size.ext` or `/img/view/Y/M/D/ID.ext`. */
export const pictureOf = (id: number): RegExp => new RegExp(`/img/[^"\\s]*/${id}[/.]`);

/** Nothing of a hidden image in `text`: no picture, file name, tag or description. */
export function expectNothingOf(text: string, image: RuleImage, what = ''): void {
  expect(text, `${what}: a picture of hidden image ${image.id}`).not.toMatch(pictureOf(image.id));
  expect(text, `${what}: a file name of hidden image ${image.id}`).not.toContain(`image-${image.id}.`);
  expect(text, `${what}: the tag of hidden image ${image.id}`).not.toContain(image.tag);
  expect(text, `${what}: the description of hidden image ${image.id}`).not.toContain(image.description);
}

/** The hidden card: names the layer, links the image, carries a Why? button and no Reveal. */
export function expectHiddenCard(message: RecordedMessage, image: RuleImage, notice: string): string {
  const all = JSON.stringify({
    content: message.content,
    embeds: message.embeds,
    components: message.components,
  });
  expect(all).toContain(notice);
  expect(all).toContain(`/images/${image.id}`);
  expect(all).toContain('rules artist');
  expectNothingOf(all, image, 'the hidden card');
  expect(customIds(message).filter((id) => id.startsWith('img:reveal:'))).toEqual([]);
  const why = customIds(message).find((id) => id.startsWith('why:'));
  if (why === undefined) throw new Error(`no Why? button on the hidden card of ${image.id}`);
  return why;
}

/** Every picture of image `id` in the message is behind a spoiler (V2), or withheld (an embed). */
export function expectSpoileredPicture(message: RecordedMessage, id: number): void {
  for (const embed of embedsOf(message)) {
    expect(embed.image?.url ?? '', 'an embed picture of a spoilered image').not.toMatch(pictureOf(id));
    expect(embed.thumbnail?.url ?? '', 'an embed thumbnail of a spoilered image').not.toMatch(pictureOf(id));
  }
  for (const item of galleryItemsOf(message)) {
    if (pictureOf(id).test(item.media.url)) expect(item.spoiler, item.media.url).toBe(true);
  }
  for (const thumbnail of componentsOfType(message, 11)) {
    if (pictureOf(id).test(JSON.stringify(thumbnail))) expect(thumbnail['spoiler']).toBe(true);
  }
}

/** The picture of image `id` is in the message, behind the spoiler: V2 with a spoilered gallery item. */
export function expectPicturedBehindSpoiler(message: RecordedMessage, id: number): void {
  expect(isComponentsV2(message)).toBe(true);
  expectSpoileredPicture(message, id);
  expect(galleryItemsOf(message).some((item) => pictureOf(id).test(item.media.url))).toBe(true);
}

/** Whether the message shows a picture of image `id` in the open. */
export function showsPicture(message: RecordedMessage, id: number): boolean {
  const embedded = embedsOf(message).some((embed) => pictureOf(id).test(embed.image?.url ?? ''));
  const gallery = galleryItemsOf(message).some(
    (item) => pictureOf(id).test(item.media.url) && item.spoiler !== true,
  );
  return embedded || gallery;
}

/** Presses the Why? button `customId` on `message` as `userId`; the private answer. */
export async function pressWhy(
  h: Harness,
  message: RecordedMessage,
  customId: string,
  userId?: string,
): Promise<RecordedMessage> {
  const answer = await h.discord
    .sendButton({ customId, message, ...(userId === undefined ? {} : { userId }) })
    .finalReply();
  expect(answer.flags & 64, 'the Why? answer is private').toBe(64);
  return answer;
}
