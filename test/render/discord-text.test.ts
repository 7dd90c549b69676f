import { describe, expect, it } from 'vitest';
import {
  escapeMarkdown,
  httpsOnlyText,
  neutraliseMentions,
  truncate,
  truncateMarkdown,
} from '../../src/render/discord-text.js';
import { resolveSite } from '../../src/philomena/sites.js';

/** Mentions as Discord would render them. */
const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>|<\/[\w -]+:\d+>/i;

/** Characters of `md` that are Markdown syntax (not preceded by a backslash), as a string. */
function unescaped(md: string, chars: string): string {
  let found = '';
  for (let i = 0; i < md.length; i += 1) {
    if (md[i] === '\\') {
      i += 1;
      continue;
    }
    if (chars.includes(md[i] ?? '')) found += md[i];
  }
  return found;
}

describe('escapeMarkdown', () => {
  it.each([
    ['**bold**', '\\*\\*bold\\*\\*'],
    ['__under__ _it_', '\\_\\_under\\_\\_ \\_it\\_'],
    ['~~strike~~', '\\~\\~strike\\~\\~'],
    ['||spoiler||', '\\|\\|spoiler\\|\\|'],
    ['`code`', '\\`code\\`'],
    ['[masked](https://evil.test)', '\\[masked\\](https\\://evil.test)'],
    ['back\\slash', 'back\\\\slash'],
    ['# heading', '\\# heading'],
    ['> quote', '\\> quote'],
    ['- list', '\\- list'],
    ['-# subtext', '\\-# subtext'],
    ['1. numbered', '1\\. numbered'],
    ['line\n## two\n  > three', 'line\n\\## two\n  \\> three'],
    ['middle # and > and - stay', 'middle # and > and - stay'],
    ['http://bare.test/x', 'http\\://bare.test/x'],
    ['plain words', 'plain words'],
  ])('GIVEN %j THEN it is escaped to %j', (input, expected) => {
    expect(escapeMarkdown(input)).toBe(expected);
  });

  it.each([
    '@everyone',
    '@here',
    '@EVERYONE',
    '<@123>',
    '<@!123>',
    '<@&456>',
    '<#789>',
    '</ban:123456>',
    'x@everyone y',
  ])('GIVEN the mention %j THEN the escaped text renders no mention', (input) => {
    const out = escapeMarkdown(input);
    expect(out).not.toMatch(MENTION);
    expect(out.replace(/[\u200b\\]/g, '')).toBe(input);
  });

  it('GIVEN escaped text with hostile Markdown THEN no formatting character is left unescaped', () => {
    const out = escapeMarkdown('*a* _b_ ~~c~~ ||d|| `e` [f](g) \\*');
    expect(unescaped(out, '*_~|`[]')).toBe('');
  });
});

describe('neutraliseMentions', () => {
  it('GIVEN text without mentions THEN it is unchanged', () => {
    expect(neutraliseMentions('mail me at a@b.test <3')).toBe('mail me at a@b.test <3');
  });
  it('GIVEN mentions THEN a zero-width space breaks each', () => {
    expect(neutraliseMentions('@everyone <@1> <#2>')).toBe('@\u200beveryone <\u200b@1> <\u200b#2>');
  });
});

describe('truncate', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['abcdefghijklmnop', 10, 'abcdefghi…'],
    ['abc', 1, '…'],
    ['abc', 0, ''],
  ])('GIVEN %j cut to %i THEN %j', (input, max, expected) => {
    expect(truncate(input, max)).toBe(expected);
  });

  it('GIVEN emoji at the cut THEN no surrogate pair is split', () => {
    const text = '😀'.repeat(20);
    for (let max = 2; max < 40; max += 1) {
      const out = truncate(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      expect(out).toMatch(/^(?:😀)*…$/u);
    }
  });

  it('GIVEN a long text with spaces THEN it is cut at a word boundary', () => {
    expect(truncate('the quick brown fox jumps over the lazy dog', 22)).toBe('the quick brown fox…');
  });
});

describe('truncateMarkdown', () => {
  it('GIVEN a cut inside a spoiler THEN the spoiler is dropped, not shown in the clear', () => {
    const md = `visible ||${'secret '.repeat(50)}||`;
    const out = truncateMarkdown(md, 60);
    expect(out.length).toBeLessThanOrEqual(60);
    expect(out).not.toContain('secret');
    expect(out).toBe('visible…');
  });
  it('GIVEN a cut inside a masked link THEN the half link is dropped', () => {
    const md = `see [a link](https://derpibooru.org/${'x'.repeat(100)}) after`;
    expect(truncateMarkdown(md, 50)).toBe('see…');
  });
  it('GIVEN a cut inside a code block THEN the block is dropped', () => {
    const md = `intro\n\`\`\`\n${'code\n'.repeat(40)}\`\`\``;
    expect(truncateMarkdown(md, 50)).toBe('intro…');
  });
  it('GIVEN a cut inside an inline code span THEN the span is dropped: what it kept as code does not come alive', () => {
    // Found by the hostile card property (seed -1396476785): the cut left `<\@123>` after a lone backtick,
    // no longer code, where Discord reads the escapes.
    const md = `see \`a\` and \`<\\@123> ${'x'.repeat(60)}\` after`;
    expect(truncateMarkdown(md, 40)).toBe('see `a` and…');
  });
  it('GIVEN balanced inline code and a double-backtick span holding a backtick THEN the cut keeps them', () => {
    const md = `\`one\` \`\`a \` b\`\` ${'word '.repeat(30)}`;
    expect(truncateMarkdown(md, 40)).toMatch(/^`one` ``a ` b`` word/);
  });
  it('GIVEN escaped pipes THEN they do not count as spoiler markers', () => {
    const md = `a \\|\\| b ${'word '.repeat(30)}`;
    expect(truncateMarkdown(md, 30)).toMatch(/^a \\\|\\\| b word/);
  });
});

describe('httpsOnlyText', () => {
  it('GIVEN a local board with an http base THEN its own links keep their base, others are upgraded', () => {
    const local = resolveSite('http://127.0.0.1:4567');
    expect(httpsOnlyText('http://127.0.0.1:4567/images/1 and http://evil.test/x', local)).toBe(
      'http://127.0.0.1:4567/images/1 and https://evil.test/x',
    );
  });
});
