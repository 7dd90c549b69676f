/**
 * /forum end to end against the local board and Discord: the board's post search, newest first, one post
 * per page read from one window; `forum:` narrows with the board's `forum:` term, is offered by
 * autocomplete from the board's forums, and names the forum on each post; a post's words show only in
 * age-restricted channels (threads, DMs and user installs follow their channel); hostile post text pings
 * nobody and stays within limits; the board's refusal in plain words.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { FORUM, type RecordedRequest } from '../fakes/philomena/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { commandRuns, componentId } from '../support/command-runs.js';
import { footerText } from '../support/messages.js';
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

const { send, run: forum, errorNote } = commandRuns(() => h, 'forum');

function allText(message: RecordedMessage): string {
  return [message.content, JSON.stringify(message.embeds)].join('\n');
}

function asked(mark: number): RecordedRequest[] {
  return h.booru.requests.slice(mark).filter((r) => r.path.endsWith('/search/posts'));
}

function postIdOf(message: RecordedMessage): number {
  return Number(/pq=id%3A(\d+)/.exec(String(message.embeds[0]?.['url']))?.[1]);
}

/** The board's own answer to `q`: the post ids, newest first. */
async function boardOrder(q: string): Promise<number[]> {
  const params = new URLSearchParams({ q, per_page: '50' });
  const response = await fetch(`${h.booru.url}/api/v1/json/search/posts?${params.toString()}`);
  const body = (await response.json()) as { posts: { id: number }[] };
  return body.posts.map((p) => p.id);
}

describe('/forum', () => {
  it('GIVEN words and forum: in an age-restricted channel THEN the forum’s posts newest first, one a page from one window, each with author, forum, time, excerpt and its own link', async () => {
    const expected = await boardOrder(`(thread), "forum:${FORUM.dis}"`);
    expect(expected.length).toBeGreaterThan(20);
    const mark = h.booru.requests.length;
    const first = await forum({ query: 'thread', forum: FORUM.dis }, 'ageRestricted');
    expect(asked(mark)[0]?.query.get('q')).toBe(`(thread), "forum:${FORUM.dis}"`);
    expect(asked(mark)[0]?.query.get('per_page')).toBe('50');
    const text = allText(first);
    expect(text).toMatch(/Post by (BotOwner|Other User) in General Discussion/);
    expect(text).toContain('in the bot thread');
    expect(text).toMatch(/<t:\d+:R>/);
    expect(String(first.embeds[0]?.['url'])).toBe(`${h.booru.url}/posts?pq=id%3A${expected[0]}`);
    expect(footerText(first)).toBe(`1 of ${expected.length}`);
    const seen = [postIdOf(first)];
    let page = first;
    const paging = h.booru.requests.length;
    for (let i = 1; i < 5; i += 1) {
      page = await h.discord
        .sendButton({ customId: componentId(page, 'frm:next:'), message: page })
        .finalReply();
      expect(page.id).toBe(first.id);
      seen.push(postIdOf(page));
    }
    expect(seen).toEqual(expected.slice(0, 5));
    page = await h.discord
      .sendButton({ customId: componentId(page, 'frm:rand:'), message: page })
      .finalReply();
    expect(expected).toContain(postIdOf(page));
    expect(asked(paging)).toHaveLength(0);
  });

  it('GIVEN plain channels, a thread, a DM and a user install THEN posts show author, forum, time and link but not their words; an age-restricted thread shows them', async () => {
    const foreign = h.discord.foreignGuild;
    for (const [channel, userId] of [
      ['plain', undefined],
      ['threadInPlain', undefined],
      ['dm', undefined],
      [foreign.channels.plain, foreign.memberId],
    ] as const) {
      const reply = await forum({ query: 'thread', forum: 'General Discussion' }, channel, userId);
      const text = allText(reply);
      expect(text, String(channel)).not.toContain('in the bot thread');
      expect(text, String(channel)).toContain('General Discussion');
      expect(text, String(channel)).toContain('shown only in age-restricted channels');
      expect(text, String(channel)).toContain('/posts?pq=id%3A');
    }
    const adult = await forum({ query: 'thread' }, 'threadInAgeRestricted');
    expect(allText(adult)).toContain('in the bot thread');
    // Not narrowed: the post search names no forum, and neither does the answer.
    expect(allText(adult)).toMatch(/Forum post by /);
  });

  it('GIVEN "disc" typed in forum: THEN the board’s forums whose name holds it, their short names as values', async () => {
    const choices = await h.discord
      .sendAutocomplete({
        name: 'forum',
        options: { query: 'x', forum: 'disc' },
        focused: 'forum',
        channel: 'plain',
      })
      .autocompleteChoices();
    expect(choices).toContainEqual({ name: 'General Discussion (dis)', value: 'dis' });
    expect(choices).toContainEqual({ name: 'Pony Discussion (pony)', value: 'pony' });
    expect(choices.map((c) => c.value)).not.toContain('art');
    // The forums come from the client's cache: typing more asks the board nothing new.
    const mark = h.booru.requests.length;
    await h.discord
      .sendAutocomplete({
        name: 'forum',
        options: { query: 'x', forum: 'discu' },
        focused: 'forum',
        channel: 'plain',
      })
      .autocompleteChoices();
    expect(h.booru.requests.slice(mark).filter((r) => r.path.endsWith('/forums'))).toHaveLength(0);
  });

  it('GIVEN a post with mentions, Markdown and a huge body by an author named like a mention THEN it pings nobody and stays within limits', async () => {
    const hostile =
      '**Bold** @everyone @here <@123> <@&456> <#789> [evil](javascript:alert(1)) `code`\n# heading\n' +
      'x'.repeat(20_000);
    const id = h.booru.addPost({
      forum: FORUM.dis,
      topic: FORUM.botTopic,
      body: hostile,
      author: '@everyone <@123>',
    });
    const before = h.discord.mentionRisks.length;
    for (const channel of ['plain', 'ageRestricted'] as const) {
      const reply = await forum({ query: `id:${id}`, forum: FORUM.dis }, channel);
      const text = allText(reply);
      expect(text).not.toMatch(/@(?:everyone|here)(?!\u200b)/);
      expect(text).not.toContain('javascript:');
      expect(String(reply.embeds[0]?.['description']).length).toBeLessThanOrEqual(1_000);
      expect(reply.allowedMentions).toMatchObject({ parse: [] });
      if (channel === 'ageRestricted') expect(text).toContain('Bold');
    }
    expect(h.discord.mentionRisks.slice(before)).toEqual([]);
    expect(h.discord.violations).toEqual([]);
  });

  it('GIVEN a query the board refuses, an unknown forum, or nothing found THEN short clear notes', async () => {
    expect(await errorNote(send({ query: '(body:thread' }))).toMatch(
      /^The site did not understand that search: \S/,
    );
    expect(await errorNote(send({ query: 'thread', forum: 'no such forum' }))).toBe(
      'That site has no forum by that name. Pick one from the list.',
    );
    const none = await forum({ query: 'zzzqqqnothing' });
    expect(none.content).toBe('No forum post matches that search.');
  });

  it('GIVEN someone else pressing Next THEN they are told only the searcher pages', async () => {
    const first = await forum({ query: 'thread', forum: FORUM.dis });
    const other = await h.discord
      .sendButton({
        customId: componentId(first, 'frm:next:'),
        message: first,
        userId: h.discord.guild.otherMemberId,
      })
      .finalReply();
    expect(other.content).toContain('Only the person who searched');
  });
});
