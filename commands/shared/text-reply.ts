/**
 * A reply of plain text that replaces whatever the message held (no embeds, no components), cut to Discord's
 * 2,000 characters: past it Discord refuses the whole message, and a member would read "Something went
 * wrong" about a change that was in fact saved.
 */
import { messageReply, type Reply } from '../../src/discord/contract.js';
import { MESSAGE_CONTENT_MAX, truncateMarkdown } from '../../src/render/index.js';

export function textReply(content: string): Reply {
  return messageReply({
    content: truncateMarkdown(content, MESSAGE_CONTENT_MAX),
    embeds: [],
    components: [],
  });
}
