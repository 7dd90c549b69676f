/** Reading what the bot sent: components, the one embed of a card, its fields and footer. */
import { expect } from 'vitest';
import type { FakeDiscord, RecordedMessage } from '../fakes/discord/index.js';
import { customIdsOf, isComponentsV2, textOf } from '../fakes/discord/v2.js';

/** The parts of an embed the tests read. */
export interface Embed {
  title?: string;
  url?: string;
  description?: string;
  image?: { url?: string };
  thumbnail?: { url?: string };
  footer?: { text?: string };
  fields?: { name: string; value: string }[];
}

/** The custom ids of every component on the message, depth-first (rows, and rows inside containers). */
export function customIds(message: RecordedMessage): string[] {
  return customIdsOf(message);
}

/** Markdown escapes taken off (`\*` → `*`), to compare a V2 text with plain text. */
function unescaped(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/** The message's only embed (asserts there is exactly one). */
export function embedOf(message: RecordedMessage): Embed {
  expect(message.embeds).toHaveLength(1);
  return message.embeds[0] as Embed;
}

/** Every embed of the message. */
export function embedsOf(message: RecordedMessage): Embed[] {
  return message.embeds as Embed[];
}

/** The value of the first field named `name` (or whose name matches it). */
export function embedField(embed: Embed, name: string | RegExp): string | undefined {
  return embed.fields?.find((f) => (typeof name === 'string' ? f.name === name : name.test(f.name)))?.value;
}

/**
 * The footer text of the first embed, or of a Components V2 card (its last small `-# ` line); '' when
 * there is none.
 */
export function footerText(message: RecordedMessage): string {
  if (isComponentsV2(message)) {
    const small = textOf(message)
      .split('\n')
      .filter((line) => line.startsWith('-# '));
    return unescaped(small.at(-1)?.slice(3) ?? '');
  }
  return String((message.embeds[0] as Embed | undefined)?.footer?.text ?? '');
}

/** The image page a card links to: the embed's url, or a V2 card's heading link; '' when none. */
export function cardUrl(message: RecordedMessage): string {
  if (isComponentsV2(message)) {
    return /^### \[[^\]]*\]\((\S+?)\)/m.exec(textOf(message))?.[1] ?? '';
  }
  return String((message.embeds[0] as Embed | undefined)?.url ?? '');
}

/** "Find source" on a member's message whose one attachment, a PNG, is served at `url`; the final reply. */
export function findSourceOnAttachment(
  discord: Pick<FakeDiscord, 'sendMessageCommand'>,
  url: string,
): Promise<RecordedMessage> {
  return discord
    .sendMessageCommand({
      name: 'Find source',
      channel: 'plain',
      targetMessage: {
        content: 'source?',
        attachments: [
          { id: '1', filename: 'pic.png', url, proxy_url: url, size: 100, content_type: 'image/png' },
        ],
      },
    })
    .finalReply();
}
