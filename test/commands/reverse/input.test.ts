import { describe, expect, it } from 'vitest';
import { readAll } from '../../../commands/shared/download.js';
import { clampDistance, fileInput, REVERSE_MAX_BYTES } from '../../../commands/reverse/results.js';

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

  it('GIVEN a picture file THEN an upload of its name and type, keyed without the signed query, opened only when the search asks', async () => {
    const opened: { url: string; maxBytes: number }[] = [];
    const download = async (url: string, options: { maxBytes: number }) => {
      opened.push({ url, maxBytes: options.maxBytes });
      return (async function* one() {
        yield new Uint8Array([1, 2, 3]);
      })();
    };
    const url = 'https://cdn.discordapp.com/attachments/1/2/a.png?ex=1&is=2&hm=3';
    const input = fileInput({ url, name: 'a.png', size: 3, contentType: 'image/png' }, { download });
    if (!('upload' in input)) throw new Error('not an upload');
    expect(input.upload).toMatchObject({
      filename: 'a.png',
      contentType: 'image/png',
      key: 'https://cdn.discordapp.com/attachments/1/2/a.png',
      maxBytes: REVERSE_MAX_BYTES,
    });
    expect(opened).toEqual([]);
    const stream = await input.upload.open(new AbortController().signal);
    expect(await readAll(stream)).toEqual(new Uint8Array([1, 2, 3]));
    expect(opened).toEqual([{ url, maxBytes: REVERSE_MAX_BYTES }]);
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
      expect(() =>
        fileInput(file, {
          download: async () => {
            downloads += 1;
            return (async function* none() {})();
          },
        }),
      ).toThrow(message);
      expect(downloads).toBe(0);
    },
  );
});
