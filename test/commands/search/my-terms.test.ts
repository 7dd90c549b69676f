/**
 * The `my:` detection of /search (commands/shared/my-terms.ts): every place the board would read a `my:`
 * field is found (a `my:` term must never reach the board without its member's key), and text the board
 * reads literally (a closed quoted term, an escaped colon) is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasMyTerm } from '../../../commands/shared/my-terms.js';

describe('hasMyTerm', () => {
  it.each([
    'my:faves',
    'my:upvotes',
    'my:downvotes',
    'my:uploads',
    'my:watched',
    'pony, my:faves',
    '-my:faves',
    '!my:faves',
    '(my:upvotes || cute)',
    'NOT my:watched',
    'safe AND MY : uploads',
    'pony && My:Faves^2',
    '"fluttershy", my:faves',
    '"an open quote, my:faves',
  ])('GIVEN %j THEN it reads the member’s account', (query) => {
    expect(hasMyTerm(query)).toBe(true);
  });

  it.each([
    'pony',
    'my little pony',
    'tommy:faves',
    '"my:faves"',
    'my\\:faves',
    '"say \\"my:faves\\""',
    'army:x',
  ])('GIVEN %j THEN it is an ordinary search', (query) => {
    expect(hasMyTerm(query)).toBe(false);
  });

  it('GIVEN any text around a my: term after a comma THEN it is found', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('"') && !s.includes('\\')),
        fc.string(),
        (before, after) => {
          expect(hasMyTerm(`${before}, my:faves${after}`)).toBe(true);
        },
      ),
    );
  });

  it('GIVEN any text in one closed quoted term THEN it is never a my: term', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const quoted = `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
        expect(hasMyTerm(quoted)).toBe(false);
      }),
    );
  });
});
