/**
 * The board's anti-bot block (docs/board-behaviour.md) as a member reads it: which site, that it is the
 * site's decision, and how long, in plain words (not "busy, try again in 16 minutes").
 */
import { describe, expect, it } from 'vitest';
import { userErrorText } from '../../../commands/shared/error-texts.js';
import { SiteBlockedError } from '../../../src/errors.js';

describe('userErrorText: the board blocked the bot', () => {
  it('GIVEN SiteBlockedError THEN the site by name has paused the bot for a while, try again in N minutes', () => {
    const error = new SiteBlockedError('blocked', 16 * 60_000, {
      site: 'derpibooru',
      siteName: 'Derpibooru',
    });
    expect(userErrorText(error)).toEqual({
      id: 'board.blocked',
      params: { site: 'Derpibooru', seconds: 960 },
      text: "Derpibooru has paused the bot's requests for a while (it took them for too many). Try again in 16 minutes.",
      expected: true,
    });
  });

  it('GIVEN a site name with Markdown in it THEN it is escaped', () => {
    const error = new SiteBlockedError('blocked', 90_000, { site: 'custom:x', siteName: 'my_*booru*' });
    const { text } = userErrorText(error);
    expect(text).toMatch(/^my\\_\\\*booru\\\* has paused the bot's requests/);
    expect(text).toMatch(/Try again in 90 s\.$/);
  });
});
