import { describe, expect, it, vi } from 'vitest';
import { boardMarkdownToDiscord, MAX_INPUT } from '../../src/render/board-markdown.js';
import { knownSite, resolveSite } from '../../src/philomena/sites.js';
import { PATHOLOGICAL_SHAPES } from '../hostile/arbitraries.js';

const derpi = knownSite('derpibooru');
if (!derpi) throw new Error('derpibooru missing from KNOWN_SITES');
const site = derpi;

/** Mentions as Discord would render them. */
const MENTION = /@everyone|@here|<@[!&]?\d+>|<#\d+>|<\/[\w -]+:\d+>/i;

/** Targets of masked links `[text](target)` whose `[` is not escaped. */
function maskedLinkTargets(md: string): string[] {
  const targets: string[] = [];
  for (let i = 0; i < md.length; i += 1) {
    if (md[i] === '\\') {
      i += 1;
      continue;
    }
    if (md[i] !== '[') continue;
    let depth = 0;
    for (let j = i; j < md.length; j += 1) {
      if (md[j] === '\\') {
        j += 1;
        continue;
      }
      if (md[j] === '[') depth += 1;
      if (md[j] === ']' && --depth === 0) {
        if (md[j + 1] === '(') targets.push(md.slice(j + 2, md.indexOf(')', j + 2)));
        break;
      }
    }
  }
  return targets;
}

describe('boardMarkdownToDiscord', () => {
  it.each([
    ['**bold** *it* _it_ __under__ ~~strike~~', '**bold** *it* *it* __under__ ~~strike~~'],
    ['||spoiler|| text', '||spoiler|| text'],
    ['>>123', '[>>123](https://derpibooru.org/images/123)'],
    [
      'see >>45t and >>46s, >>47p.',
      'see [>>45](https://derpibooru.org/images/45) and [>>46](https://derpibooru.org/images/46), [>>47](https://derpibooru.org/images/47).',
    ],
    ['[tag](/tags/safe)', '[tag](https://derpibooru.org/tags/safe)'],
    ['[site](http://example.test/page)', '[site](https://example.test/page)'],
    ['![pic](http://cdn.test/a.png)', '[image: pic](https://cdn.test/a.png)'],
    ['![](https://cdn.test/a.png)', '[image](https://cdn.test/a.png)'],
    ['"old link":http://example.test/x.', '[old link](https://example.test/x).'],
    ['visit http://example.test/a_b_c.', 'visit <https://example.test/a_b_c>.'],
    ['<b>bold</b> and <script>x</script>', 'bold and x'],
    ['a&amp;b &lt;3', 'a&b \\<3'],
    ['line one\r\nline two', 'line one\nline two'],
    ['> quoted >>5', '> quoted [>>5](https://derpibooru.org/images/5)'],
    ['>greentext', '\\>greentext'],
    ['# Heading', '**Heading**'],
    ['- one\n- two', '- one\n- two'],
    ['1. one\n2. two', '1. one\n2. two'],
    ['`code *x*`', '`code *x*`'],
    ['```\nblock **x**\n```', '```\nblock **x**\n```'],
    ['[spoiler]old spoiler[/spoiler]', '||old spoiler||'],
    ['snake_case_word', 'snake\\_case\\_word'],
    ['**unclosed bold', '\\*\\*unclosed bold'],
    ['a || b', 'a \\|\\| b'],
    ['[js](javascript:alert(1))', 'js'],
    ['[data](data:text/html,x)', 'data'],
    ['[https://paypal.test](https://evil.test)', '<https://evil.test/>'],
  ])('GIVEN %j THEN %j', (input, expected) => {
    expect(boardMarkdownToDiscord(input, site)).toBe(expected);
  });

  it('GIVEN a spoiler across lines THEN it stays one spoiler', () => {
    expect(boardMarkdownToDiscord('||first\r\nsecond||', site)).toBe('||first\nsecond||');
  });

  it('GIVEN a site with an http base THEN its own relative links keep http, others become https', () => {
    const local = resolveSite('http://127.0.0.1:8080');
    expect(boardMarkdownToDiscord('>>7 [a](/tags/x) [b](http://other.test/)', local)).toBe(
      '[>>7](http://127.0.0.1:8080/images/7) [a](http://127.0.0.1:8080/tags/x) [b](https://other.test/)',
    );
  });

  const hostile = [
    '@everyone look',
    '@here',
    '<@123> <@!123> <@&1> <#1> </cmd:1>',
    '**@everyone**',
    '||<@&1>||',
    '[@everyone](https://x.test)',
    '`@everyone` ```\n<@1>\n```',
    '> @here',
    '- <@1>',
    '# @everyone',
    '<b>@</b>everyone',
    '&lt;@123&gt;',
    '&#64;everyone',
    '"@everyone":http://x.test',
    'https://x.test/@everyone/<@1>',
    '[x](https://x.test/<@1>)',
  ];
  it.each(hostile)('GIVEN hostile text %j THEN no mention renders', (input) => {
    expect(boardMarkdownToDiscord(input, site)).not.toMatch(MENTION);
  });

  it.each([
    ['[click](javascript:alert(1))', []],
    ['[a](http://x.test) [b](ftp://y.test) [c](//cdn.test/z)', ['https://x.test/', 'https://cdn.test/z']],
    ['\\[not](a link)', []],
    // CommonMark: a link cannot contain a link, and the inner one wins (the board shows the same).
    ['[outer [inner](https://a.test)](https://b.test)', ['https://a.test/']],
    ['[outer [inner] text](https://b.test)', ['https://b.test/']],
    ['"t":javascript:alert(1)', []],
    ['[x](https://a.test/(paren)) y', ['https://a.test/%28paren%29']],
    ['<span>[x</span>](https://a.test)', ['https://a.test/']],
  ])('GIVEN %j THEN the only masked links are %j', (input, targets) => {
    const out = boardMarkdownToDiscord(input, site);
    expect(maskedLinkTargets(out)).toEqual(targets);
  });

  it('GIVEN any output THEN every URL in it is https', () => {
    const out = boardMarkdownToDiscord(
      'http://a.test [b](http://b.test) ![c](http://c.test/c.png) <http://d.test> "e":http://e.test www.f.test //g.test',
      site,
    );
    const urls = out.match(/[a-z][a-z0-9+.-]*:\/\/[^\s)>]+/gi) ?? [];
    expect(urls.length).toBeGreaterThanOrEqual(6);
    for (const url of urls) expect(url).toMatch(/^https:\/\//);
  });

  it('GIVEN pathological input THEN it converts within the input cap', () => {
    const inputs = [
      '*a'.repeat(20_000),
      '['.repeat(20_000),
      '**'.repeat(20_000),
      '_x'.repeat(20_000),
      '||'.repeat(9_999),
    ];
    for (const input of inputs) {
      const out = boardMarkdownToDiscord(input, site);
      expect(out.length).toBeLessThan(30_000);
      expect(out).not.toMatch(MENTION);
    }
  });

  it.each(PATHOLOGICAL_SHAPES)(
    'GIVEN $name at 12,000 characters THEN it converts within the input cap',
    ({ make }) => {
      const out = boardMarkdownToDiscord(make(12_000), site);
      // `>>1 ` becomes a 40-character link: the most any 4 characters grow.
      expect(out.length).toBeLessThanOrEqual(10 * MAX_INPUT);
      expect(out).not.toMatch(MENTION);
    },
  );

  /**
   * Work, not time (machines are noisy): characters read (markdown-it scans with `charCodeAt`) and
   * regular-expression runs are counted while the same shape is converted at two lengths below the input
   * cap. Linear work doubles; a rescan per character (the old quadratic `trimUrl` matched every
   * bracket of the URL again for each trailing `)`) quadruples.
   */
  it.each(PATHOLOGICAL_SHAPES)(
    'GIVEN $name THEN the scanning work grows linearly with its length',
    ({ make }) => {
      const small = scanWork(() => boardMarkdownToDiscord(make(500), site));
      const large = scanWork(() => boardMarkdownToDiscord(make(1_000), site));
      expect(large).toBeLessThanOrEqual(2.2 * small + 20);
    },
  );

  it('GIVEN a 12,000-character description THEN no more than its first 4,000 characters are read, and the cut shows', () => {
    // A card shows at most 2,500 characters of board text: reading more is work for nothing, and a
    // hostile uploader's.
    expect(MAX_INPUT).toBeLessThanOrEqual(4_000);
    const input = `${'word '.repeat(800)}LATEMARK ${'word '.repeat(1_600)}`;
    const out = boardMarkdownToDiscord(input, site);
    expect(out).not.toContain('LATEMARK');
    expect(out.endsWith('…')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(MAX_INPUT);
    const early = boardMarkdownToDiscord(
      `${'word '.repeat(MAX_INPUT / 5 - 10)}EARLYMARK ${'x'.repeat(8_000)}`,
      site,
    );
    expect(early).toContain('EARLYMARK');
  });

  it.each([
    ['a spoiler', `${'a '.repeat(1_900)}||${'secret '.repeat(400)}||`],
    ['a Textile spoiler', `${'a '.repeat(1_900)}[spoiler]${'secret '.repeat(400)}[/spoiler]`],
    [
      'a spoiler before a code span open at the cut',
      `x ||${'secret '.repeat(300)}\`${'code '.repeat(500)}\` ||`,
    ],
    ['a spoiler in the last of several lines', `${'line\n'.repeat(700)}||${'secret '.repeat(400)}||`],
    ['a spoiler in a heading', `# ${'a '.repeat(1_900)}||${'secret '.repeat(400)}||`],
    [
      'a spoiler closed after a code span open at the cut',
      `x ||secret \`${'code '.repeat(300)}code|| ${'secret '.repeat(500)}\` ||`,
    ],
    ['a spoiler inside emphasis', `*a ||${'secret '.repeat(300)}* ${'secret '.repeat(300)}||`],
  ])('GIVEN %s open at the input cut THEN the spoilered text never shows in the clear', (_name, input) => {
    expect(input.length).toBeGreaterThan(MAX_INPUT);
    const out = boardMarkdownToDiscord(input, site);
    expect(out).toContain('secret');
    expect(out.replace(/\|\|[\s\S]*?\|\|/g, '')).not.toContain('secret');
  });

  it.each([
    ['a bare URL then )', `https://a.bc/${')'.repeat(50)} x`, `<https://a.bc/>${')'.repeat(50)} x`],
    ['a www. URL then )', 'www.a.bc/)) x', '<https://www.a.bc/>)) x'],
    ['a Textile link then )', '"text":https://a.bc/)))', '[text](https://a.bc/))))'],
    ['a Markdown link then )', '[t](https://a.bc/)))', '[t](https://a.bc/)))'],
    ['an autolink with )', '<https://a.bc/)))>', '<https://a.bc/%29%29%29>'],
    ['a bare URL then .', 'see https://a.bc/a.... ok', 'see <https://a.bc/a>.... ok'],
    ['a bare URL then ]', 'https://a.bc/]]', '<https://a.bc/%5D%5D>'],
    ['a bare URL in brackets', 'see (https://a.bc/x) ok', 'see (<https://a.bc/x>) ok'],
    ['a balanced ) in a URL', 'https://a.bc/(x)).', '<https://a.bc/%28x%29>).'],
    [
      'a URL longer than a link may be',
      `https://a.bc/${'x'.repeat(3_000)}`,
      `https\\://a.bc/${'x'.repeat(3_000)}`,
    ],
    ['a heading with closing hashes', '## Title ##   ', '**Title**'],
    ['a heading with a hash inside', '# a # #', '**a #**'],
    // CommonMark: `##` after a blank is the heading's closing sequence, so the heading is empty.
    ['a heading of hashes', '# ##', ''],
    ['a heading then spaces', `# a${' '.repeat(50)}b`, `**a${' '.repeat(50)}b**`],
    ['a table rule', '| --- | :---: |\nrow', 'row'],
    ['a table rule without pipes at the ends', '--- | ---\nrow', 'row'],
    ['one cell is no table rule', '| --- |', '\\| --- \\|'],
    ['unclosed Textile markers', '[spoiler]a [==b', '\\[spoiler\\]a \\[==b'],
    ['closed Textile markers', '[SPOILER]a[/spoiler] [==*b*==]', '||a|| \\*b\\*'],
    ['an unclosed backtick run inside emphasis', '*a ``` b*', '*a \\`\\`\\` b*'],
    ['brackets nested past an unclosed one', '[[a](https://a.bc/)', '\\[[a](https://a.bc/)'],
  ])('GIVEN %s THEN the output is exactly as expected', (_name, input, expected) => {
    expect(boardMarkdownToDiscord(input, site)).toBe(expected);
  });

  it('GIVEN deeply nested emphasis THEN it does not overflow the stack', () => {
    const input = `${'**_'.repeat(500)}x${'_**'.repeat(500)}`;
    expect(() => boardMarkdownToDiscord(input, site)).not.toThrow();
  });
});

describe('boardMarkdownToDiscord reads CommonMark as the board does', () => {
  it.each([
    [
      'Textile inside code',
      '`[spoiler]x[/spoiler]` and "a":/b',
      '`[spoiler]x[/spoiler]` and [a](https://derpibooru.org/b)',
    ],
    [
      'a Textile spoiler that is a link text',
      '[spoiler](/tags/x)',
      '[spoiler](https://derpibooru.org/tags/x)',
    ],
    ['an empty Textile spoiler', 'a[spoiler][/spoiler]b', 'ab'],
    ['a spoiler inside a spoiler', '||a ||b|| c||', '||a b c||'],
    ['bold inside a heading', '# a **b** c', '**a b c**'],
    ['a reference link', '[ref]\n\n[ref]: /tags/x', '[ref](https://derpibooru.org/tags/x)'],
    ['a Textile quote', 'bq. old *quote*', '> old *quote*'],
    ['a nested list', '- a\n  - b\n- c', '- a\n  - b\n- c'],
    ['a quote holding a list', '> - a\n> - b', '> - a\n> - b'],
    ['an indented code block', '    <@1> **x**', '```\n<\u200b@1> **x**\n```'],
    ['a comment and a line break tag', 'a<!-- hidden --><br>b', 'a\nb'],
    ['emphasis crossing strike', '*a ~~b* c~~', '*a \\~\\~b* c\\~\\~'],
  ])('GIVEN %s THEN the output is exactly as expected', (_name, input, expected) => {
    expect(boardMarkdownToDiscord(input, site)).toBe(expected);
  });

  it.each(['<*<b></b>*@1>', '@<i></i>everyone', '<<span></span>@&1>', '&lt;*<b></b>*#1>'])(
    'GIVEN %j THEN pieces written apart do not meet as a mention',
    (input) => {
      const out = boardMarkdownToDiscord(input, site);
      expect(out).not.toMatch(MENTION);
      expect(out.replace(/\\/g, '')).not.toMatch(MENTION);
    },
  );
});

/** How many characters are read with `charCodeAt` and how many regular expressions run during `run`. */
function scanWork(run: () => void): number {
  const exec = vi.spyOn(RegExp.prototype, 'exec');
  const read = vi.spyOn(String.prototype, 'charCodeAt');
  try {
    run();
    return exec.mock.calls.length + read.mock.calls.length;
  } finally {
    exec.mockRestore();
    read.mockRestore();
  }
}

describe('httpsOnlyText in board Markdown', () => {
  const derpi = knownSite('derpibooru');
  it.each([
    ['an http URL in a code span', '`see http://evil.test/a`', '`see https://evil.test/a`'],
    ['an http URL in a code block', '```\nhttp://evil.test/a\n```', '```\nhttps://evil.test/a\n```'],
    ['autolinks around a fence', '<http://evil.test/a>  ```<http://evil.test/a>', 'http'],
  ])('GIVEN %s THEN no http:// URL is shown', (_name, input, expected) => {
    if (!derpi) throw new Error('derpibooru missing');
    const out = boardMarkdownToDiscord(input, derpi);
    expect(out).not.toMatch(/http:\/\//i);
    if (expected !== 'http') expect(out).toBe(expected);
  });
});
