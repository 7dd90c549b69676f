/**
 * `joinWithin` (src/render/discord-text.ts): as many whole items as fit, then a count of the rest, within
 * the bound, whatever the count line's length does as the count changes (a plural in some language may be
 * longer for 2 than for 5); and the count line is asked a few times, not once per item.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinWithin } from '../../src/render/discord-text.js';

/** A count line whose length jumps with the count, like plural forms of different lengths. */
const jumpy = (left: number): string => `… +${left} ${left % 3 === 0 ? 'weitere Einträge' : 'mehr'}`;

describe('joinWithin', () => {
  it('GIVEN everything fits THEN every item, no count, and the count line never asked', () => {
    let asked = 0;
    const out = joinWithin(['a', 'b', 'c'], ', ', 100, (n) => {
      asked += 1;
      return `${n} more`;
    });
    expect(out).toEqual({ text: 'a, b, c', shown: 3 });
    expect(asked).toBe(0);
  });

  it('GIVEN any items, bound and count line THEN within the bound (unless nothing fits), whole items in order, the count right, and one more item would not fit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 20, max: 1024 }),
        (items, max) => {
          const { text, shown } = joinWithin(items, ', ', max, jumpy);
          if (shown === items.length) {
            expect(text).toBe(items.join(', '));
            expect(text.length).toBeLessThanOrEqual(max);
            return;
          }
          const rest = jumpy(items.length - shown);
          expect(text).toBe(shown === 0 ? rest : `${items.slice(0, shown).join(', ')}, ${rest}`);
          if (shown > 0) expect(text.length).toBeLessThanOrEqual(max);
          if (shown + 1 < items.length) {
            const longer = `${items.slice(0, shown + 1).join(', ')}, ${jumpy(items.length - shown - 1)}`;
            expect(longer.length).toBeGreaterThan(max);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('GIVEN 80 items that do not all fit THEN the count line is asked a handful of times, not per item', () => {
    let asked = 0;
    const items = Array.from({ length: 80 }, (_, i) => `image tag ${i}`);
    joinWithin(items, ', ', 400, (n) => {
      asked += 1;
      return `… and ${n} more`;
    });
    expect(asked).toBeLessThan(12);
  });
});
