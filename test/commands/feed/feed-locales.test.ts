/**
 * Every `/feed` answer (commands/feed/feed-text.ts) in the pseudo-locale, English stretched by about 40%,
 * with the longest inputs the command lets through: each stays within Discord's 2,000 characters, so a
 * translation as long as the pseudo-locale's fits too. The list, which may be cut (textReply), must still
 * hold its header and whole lines for a full server.
 */
import { describe, expect, it } from 'vitest';
import {
  addedText,
  alreadyRunningText,
  listText,
  pausedText,
  removedText,
  resumedText,
  type FeedSpeaker,
} from '../../../commands/feed/feed-text.js';
import type { Feed, PauseReason } from '../../../commands/feed/feed-store.js';
import { createTranslator, loadCatalogues } from '../../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoCatalogue } from '../../../src/i18n/pseudo.js';

const MESSAGE_CONTENT_MAX = 2_000;

const catalogues = loadCatalogues();
const english = catalogues.get('en-US');
if (english === undefined) throw new Error('no en-US catalogue');
const pseudo: FeedSpeaker = {
  translator: createTranslator(new Map([...catalogues, [PSEUDO_LOCALE, pseudoCatalogue(english)]])),
  locale: PSEUDO_LOCALE,
};

const CHANNEL = '1'.repeat(20);
const LONG_QUERY = 'a, '.repeat(200);
const LONG_SITE = 'Ponybooru'.repeat(12);
const REASONS: readonly PauseReason[] = ['admin', 'channel-missing', 'forbidden', 'query-rejected'];

function feedOf(i: number): Feed {
  const reason = REASONS[i % (REASONS.length + 1)];
  return {
    id: `f${String(i).padStart(5, '0')}`,
    guildId: '2'.repeat(20),
    channelId: CHANNEL,
    siteId: 'ponybooru',
    query: LONG_QUERY,
    createdBy: '3'.repeat(20),
    createdAt: 0,
    cursor: 1,
    ageRestricted: false,
    ...(i % 2 === 0 ? { lastPostAt: 1_700_000_000_000 } : {}),
    ...(reason === undefined ? {} : { paused: { reason, detail: 'x'.repeat(300), at: 0 } }),
  };
}

describe('/feed answers in the pseudo-locale', () => {
  it('GIVEN the pseudo-locale THEN its messages differ from English (the texts come from the catalogue)', () => {
    expect(pausedText(pseudo, 'abc123')).not.toBe(
      pausedText({ translator: pseudo.translator, locale: 'en-US' }, 'abc123'),
    );
  });

  it.each([true, false])(
    'GIVEN the longest add (age-restricted %s, a day between checks) THEN the confirmation fits a message',
    (ageRestricted) => {
      const text = addedText(pseudo, {
        id: 'abc123',
        siteName: LONG_SITE,
        query: LONG_QUERY,
        channelId: CHANNEL,
        intervalMs: 24 * 3_600_000,
        ageRestricted,
      });
      expect(text).toContain('1,440');
      expect(text.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX);
    },
  );

  it('GIVEN remove, pause and resume THEN each answer fits a message', () => {
    for (const text of [
      removedText(pseudo, 'abc123', CHANNEL),
      pausedText(pseudo, 'abc123'),
      alreadyRunningText(pseudo, 'abc123'),
      resumedText(pseudo, 'abc123'),
      listText(pseudo, [], 10, () => LONG_SITE),
    ]) {
      expect(text.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX);
    }
  });

  it('GIVEN one feed in each state THEN each list line alone fits a message', () => {
    for (let i = 0; i <= REASONS.length; i++) {
      const text = listText(pseudo, [feedOf(i)], 100, () => LONG_SITE);
      expect(text.split('\n')).toHaveLength(2);
      expect(text.length).toBeLessThanOrEqual(MESSAGE_CONTENT_MAX);
    }
  });
});

describe('why a feed paused, in the reader’s language', () => {
  const translator = pseudo.translator;
  const paused = (pause: Feed['paused']): Feed => ({ ...feedOf(1), paused: pause });
  const stateIn = (locale: string, feed: Feed): string =>
    listText({ translator, locale }, [feed], 25, () => 'Derpibooru');

  it('GIVEN a feed the bot may no longer post in, read by a Polish admin THEN the cause and the permissions are Polish, no English note', () => {
    const text = stateIn('pl', paused({ reason: 'forbidden', detail: '', cause: 'cannot-post', at: 0 }));
    expect(text).toContain('bot nie może już tam publikować');
    expect(text).toContain('„Wysyłanie wiadomości”');
    expect(text).not.toMatch(/Send Messages|may no longer/);
  });

  it.each(['cannot-see', 'removed'] as const)(
    'GIVEN a feed paused because %s THEN German names that cause',
    (cause) => {
      const text = stateIn('de', paused({ reason: 'forbidden', detail: '', cause, at: 0 }));
      expect(text).toContain(translator.t('de', `feed.state.forbidden.${cause}`));
    },
  );

  it('GIVEN a deleted channel and a refused query THEN the one has no note and the other keeps the board’s words', () => {
    expect(stateIn('ru', paused({ reason: 'channel-missing', detail: '', at: 0 }))).toContain(
      'канала больше нет',
    );
    expect(
      stateIn('ru', paused({ reason: 'query-rejected', detail: 'unbalanced parentheses', at: 0 })),
    ).toContain('unbalanced parentheses');
  });

  it('GIVEN a feed paused before causes were kept (an English note) THEN the note is still shown', () => {
    expect(
      stateIn('de', paused({ reason: 'forbidden', detail: 'the bot was removed from this server', at: 0 })),
    ).toContain('the bot was removed from this server');
  });
});
