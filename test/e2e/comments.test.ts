/**
 * /comments end to end against the local board and Discord: the board's comment search, newest first, one
 * comment per page read from one window; each comment with its author, time, excerpt, link and its image
 * as a credited card; a comment on a non-safe image listed without its excerpt outside age-restricted
 * channels (threads, DMs and user installs too); hostile comment text pings nobody and stays within
 * limits; the board's refusal in plain words.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { COMMENT_IDS, IDS, type RecordedRequest } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { commandRuns, componentId } from '../support/command-runs.js';
import { customIds, footerText } from '../support/messages.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  expectNoDiscordProblems(h.discord);
});

const { send, run: comments, errorNote } = commandRuns(() => h, 'comments');

function allText(message: RecordedMessage): string {
  return [message.content, JSON.stringify(message.embeds)].join('\n');
}

function asked(mark: number): RecordedRequest[] {
  return h.booru.requests.slice(mark).filter((r) => r.path.endsWith('/search/comments'));
}

function commentUrl(message: RecordedMessage): string {
  return String(message.embeds[0]?.['url']);
}

/** The board's own answer to `q`: the comment ids, newest first. */
async function boardOrder(q: string): Promise<number[]> {
  const params = new URLSearchParams({ q, per_page: '50' });
  const response = await fetch(`${h.booru.url}/api/v1/json/search/comments?${params.toString()}`);
  const body = (await response.json()) as { comments: { id: number }[] };
  return body.comments.map((c) => c.id);
}

const BY_OWNER = 'author:BotOwner';

describe('/comments', () => {
  it('GIVEN a search in a plain channel THEN its comments newest first, one a page from one window, each with author, time, link and its image credited; the suggestive image’s comment without its excerpt', async () => {
    const expected = await boardOrder(BY_OWNER);
    expect(expected[0]).toBe(COMMENT_IDS.onSuggestive);
    expect(expected.length).toBeGreaterThan(2);
    const mark = h.booru.requests.length;
    const first = await comments({ query: BY_OWNER });
    expect(asked(mark)[0]?.query.get('q')).toBe(BY_OWNER);
    expect(asked(mark)[0]?.query.get('per_page')).toBe('50');
    expect(commentUrl(first)).toBe(
      `${h.booru.url}/images/${IDS.suggestive}#comment_${COMMENT_IDS.onSuggestive}`,
    );
    const text = allText(first);
    expect(text).toContain('Comment by BotOwner on image');
    expect(text).toMatch(/<t:\d+:R>/);
    expect(text).not.toContain('Spicy one');
    expect(text).toContain('Not shown here');
    // Its image as a credited card: the image's own link among the embeds.
    expect(first.embeds).toHaveLength(2);
    expect(String(first.embeds[1]?.['url'])).toContain(`/images/${IDS.suggestive}`);
    expect(footerText(first)).toBe(`1 of ${expected.length}`);
    const seen: number[] = [COMMENT_IDS.onSuggestive];
    let page = first;
    const paging = h.booru.requests.length;
    for (let i = 1; i < expected.length; i += 1) {
      page = await h.discord
        .sendButton({ customId: componentId(page, 'cmt:next:'), message: page })
        .finalReply();
      expect(page.id).toBe(first.id);
      seen.push(Number(/#comment_(\d+)/.exec(commentUrl(page))?.[1]));
    }
    expect(seen).toEqual(expected);
    expect(allText(page)).toContain('Lovely picture');
    expect(asked(paging)).toHaveLength(0);
  });

  it('GIVEN the same search in age-restricted channels THEN the suggestive image’s comment shows its excerpt', async () => {
    for (const channel of ['ageRestricted', 'threadInAgeRestricted'] as const) {
      const reply = await comments({ query: BY_OWNER }, channel);
      expect(allText(reply), channel).toContain('Spicy one, this.');
    }
  });

  it('GIVEN a thread, a DM and a user install in a server without the bot THEN the suggestive image’s comment is listed without its excerpt', async () => {
    const foreign = h.discord.foreignGuild;
    for (const [channel, userId] of [
      ['threadInPlain', undefined],
      ['dm', undefined],
      [foreign.channels.plain, foreign.memberId],
    ] as const) {
      const reply = await comments({ query: BY_OWNER }, channel, userId);
      const text = allText(reply);
      expect(text, String(channel)).not.toContain('Spicy one');
      expect(text, String(channel)).toContain(`#comment_${COMMENT_IDS.onSuggestive}`);
      expect(reply.allowedMentions).toMatchObject({ parse: [] });
    }
  });

  it('GIVEN a comment with mentions, Markdown and a huge body by an author named like a mention THEN it pings nobody and stays within limits', async () => {
    const hostile =
      '**Bold** @everyone @here <@123> <@&456> <#789> [evil](javascript:alert(1)) `code`\n# heading\n' +
      'x'.repeat(20_000);
    const id = h.booru.addComment({ imageId: IDS.safe, body: hostile, author: '@everyone <@123> **Shout**' });
    const before = h.discord.mentionRisks.length;
    for (const channel of ['plain', 'ageRestricted'] as const) {
      const reply = await comments({ query: `id:${id}` }, channel);
      const text = allText(reply);
      expect(text).toContain('Bold');
      expect(text).not.toMatch(/@(?:everyone|here)(?!\u200b)/);
      expect(text).not.toContain('javascript:');
      expect(String(reply.embeds[0]?.['description']).length).toBeLessThanOrEqual(1_000);
      expect(reply.allowedMentions).toMatchObject({ parse: [] });
    }
    expect(h.discord.mentionRisks.slice(before)).toEqual([]);
    expect(h.discord.violations).toEqual([]);
  });

  it('GIVEN a comment whose image the board does not serve THEN that comment is listed without its excerpt or a card, and the page still answers', async () => {
    const id = h.booru.addComment({ imageId: 987_654, body: 'Words about a missing picture' });
    for (const channel of ['plain', 'ageRestricted'] as const) {
      const reply = await comments({ query: `id:${id}` }, channel);
      expect(reply.embeds, channel).toHaveLength(1);
      expect(allText(reply), channel).not.toContain('missing picture');
      expect(allText(reply), channel).toContain(`#comment_${id}`);
    }
  });

  it('GIVEN a private answer THEN Post publicly posts the comment without buttons, and only the searcher pages', async () => {
    const own = await comments({ query: BY_OWNER, private: true });
    expect(own.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    const posted = await h.discord
      .sendButton({ customId: componentId(own, 'cmt:pub:'), message: own })
      .finalReply();
    expect(posted.id).not.toBe(own.id);
    expect(customIds(posted).filter((c) => c.startsWith('cmt:'))).toEqual([]);
    const open = await comments({ query: BY_OWNER });
    const other = await h.discord
      .sendButton({
        customId: componentId(open, 'cmt:next:'),
        message: open,
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(other.content).toContain('Only the person who searched');
  });

  it('GIVEN a query the board refuses THEN its own error in plain words; GIVEN one that finds nothing THEN a short note', async () => {
    expect(await errorNote(send({ query: '(body:lovely' }))).toMatch(
      /^The site did not understand that search: \S/,
    );
    const none = await comments({ query: 'zzzqqqnothing' });
    expect(none.content).toBe('No comment matches that search.');
  });
});
