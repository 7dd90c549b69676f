/**
 * What the "Why?" button tells the member who pressed it (commands/shared/why-button.ts `whyText`): the
 * layer that hides the image for them here, the tag for the server's, the channel's and their own lists
 * (never the floor's), and where to change it; names cannot format or ping.
 */
import { describe, expect, it } from 'vitest';
import { sayIn } from '../../../commands/shared/say.js';
import { whyText } from '../../../commands/shared/why-button.js';
import type { RuleLayer, TagRule } from '../../../src/render/content-rules.js';

const rule = (tag: string, layer: RuleLayer): TagRule => ({ tag, layer, ratings: 'any' });

describe('whyText', () => {
  it('GIVEN the floor hides the image THEN it says no setting lifts it and names no tag', () => {
    const text = whyText(rule('secret floor tag', 'floor'), 5);
    expect(text).toMatch(/bot's own rules/);
    expect(text).toMatch(/No server or member setting can lift them/);
    expect(text).not.toContain('secret floor tag');
  });

  it.each<[RuleLayer, RegExp, RegExp]>([
    ['server', /^This server's rules hide it/, /`\/settings show`/],
    ['channel', /^This channel's rules hide it/, /`\/settings show channel:`/],
    ['member', /^Your own list hides it/, /`\/me unhide tags:`/],
  ])(
    'GIVEN the %s layer hides the image THEN it names the layer, the tag and where to change it',
    (layer, opening, where) => {
      const text = whyText(rule('gore', layer), 5);
      expect(text).toMatch(opening);
      expect(text).toContain('`gore`');
      expect(text).toMatch(where);
    },
  );

  it('GIVEN no rule hides it any more THEN it says so and how to see the image', () => {
    const text = whyText(undefined, 123);
    expect(text).toMatch(/^Nothing hides image 123/);
    expect(text).toContain('`/image 123`');
  });

  it('GIVEN a tag with backticks, a mention and a very long name THEN it stays in its code span and pings nobody', () => {
    const text = whyText(rule('a`b @everyone <@1> ' + 'x'.repeat(300), 'member'), 5);
    const code = /the tag `([^`]*)`\./.exec(text)?.[1];
    expect(code).toBeDefined();
    expect(code).not.toContain('`');
    expect(text).not.toMatch(/@everyone|<@1>/);
    // Cut to 60 characters; the zero-width spaces that break the mentions come on top.
    expect((code ?? '').replaceAll('\u200b', '').length).toBeLessThanOrEqual(60);
  });
});

describe('whyText in the presser’s language', () => {
  it('GIVEN a German member THEN each layer’s answer is German, the tag kept as written', () => {
    const de = sayIn('de');
    expect(whyText({ tag: 'gore', ratings: 'any', layer: 'server' }, 5, de)).toBe(
      'Die Regeln dieses Servers blenden es aus: Der Tag `gore` steht auf der Liste der ausgeblendeten Tags des Servers. Mitglieder, die die Einstellungen ändern dürfen, können sie mit `/settings show` prüfen.',
    );
    expect(whyText(undefined, 12345, sayIn('pl'))).toContain('obrazu 12345');
    expect(whyText({ tag: 'x', ratings: 'any', layer: 'floor' }, 1, sayIn('ru'))).toMatch(
      /^Собственные правила бота/,
    );
  });
});
