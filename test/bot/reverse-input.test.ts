import { describe, expect, it } from 'vitest';
import { clampDistance, fileInput, REVERSE_MAX_BYTES } from '../../src/bot/reverse-results.js';

describe('reverse search input', () => {
  it.each<[number | null, number | undefined]>([
    [null, undefined],
    [Number.NaN, undefined],
    [0.4, 0.4],
    [-3, 0],
    [7, 1],
    [Number.POSITIVE_INFINITY, undefined],
  ])('GIVEN distance %s THEN %s is sent', (given, sent) => {
    expect(clampDistance(given)).toBe(sent);
  });

  const download = async () => new Uint8Array([1, 2, 3]);

  it('GIVEN a picture file THEN its bytes, name and type are the input', async () => {
    const input = await fileInput(
      { url: 'https://cdn.test/a.png', name: 'a.png', size: 3, contentType: 'image/png' },
      { download },
    );
    expect(input).toEqual({ file: new Uint8Array([1, 2, 3]), filename: 'a.png', contentType: 'image/png' });
  });

  it.each([
    [
      'not a picture',
      { url: 'https://cdn.test/a.txt', name: 'a.txt', size: 3, contentType: 'text/plain' },
      /not an image/,
    ],
    [
      'too large',
      { url: 'https://cdn.test/a.png', name: 'a.png', size: REVERSE_MAX_BYTES + 1, contentType: 'image/png' },
      /too large/,
    ],
  ])(
    'GIVEN a file that is %s THEN the member is told, nothing is downloaded',
    async (_name, file, message) => {
      let downloads = 0;
      await expect(
        fileInput(file, {
          download: async () => {
            downloads += 1;
            return new Uint8Array();
          },
        }),
      ).rejects.toThrow(message);
      expect(downloads).toBe(0);
    },
  );
});
