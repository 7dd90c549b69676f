import { describe, expect, it } from 'vitest';
import {
  CUSTOM_ID_MAX,
  CustomIdError,
  decodeCustomId,
  decodeTime,
  encodeCustomId,
  encodeTime,
  siteCode,
  siteOfCode,
} from '../../src/discord/custom-id.js';
import { encodeSearchButton, searchButton, SORTS, type SearchPage } from '../../commands/search/codec.js';
import { KNOWN_SITES, knownSite, resolveSite } from '../../src/philomena/sites.js';

const derpibooru = knownSite('derpibooru')!;
const local = resolveSite('http://127.0.0.1:8080');

describe('custom ids', () => {
  it('GIVEN segments THEN they round-trip with the handler key', () => {
    const id = encodeCustomId('img', 'reveal', ['derpibooru', 42]);
    expect(id).toBe('img:reveal:derpibooru:42');
    expect(decodeCustomId(id)).toEqual({ key: 'img:reveal', args: ['derpibooru', '42'] });
  });

  it('GIVEN a segment with a colon or an id over 100 characters THEN encoding refuses', () => {
    expect(() => encodeCustomId('a', 'b', ['x:y'])).toThrow(CustomIdError);
    expect(() => encodeCustomId('a', 'b', ['x'.repeat(CUSTOM_ID_MAX)])).toThrow(CustomIdError);
  });

  it.each([[''], ['x'], [':x'], ['x'.repeat(101)]])('GIVEN a foreign id %j THEN it does not decode', (id) => {
    expect(decodeCustomId(id)).toBeUndefined();
  });

  it('GIVEN site codes THEN known sites use their id and the configured custom site a short code', () => {
    for (const site of KNOWN_SITES) expect(siteOfCode(siteCode(site), KNOWN_SITES, local)).toBe(site);
    expect(siteCode(local)).not.toContain(':');
    expect(siteOfCode(siteCode(local), [...KNOWN_SITES, local], local)).toBe(local);
    // With a known configured site there is no custom code to resolve.
    expect(siteOfCode(siteCode(local), KNOWN_SITES, derpibooru)).toBeUndefined();
    expect(siteOfCode('evilbooru', KNOWN_SITES, derpibooru)).toBeUndefined();
  });

  it('GIVEN times THEN they round-trip to the second and junk does not', () => {
    const now = 1_767_000_000_123;
    expect(decodeTime(encodeTime(now))).toBe(1_767_000_000_000);
    expect(decodeTime('!!')).toBeUndefined();
    expect(decodeTime(undefined)).toBeUndefined();
  });
});

describe('search paging ids', () => {
  const widest: SearchPage = {
    site: local,
    token: 'AbCdEf_-',
    page: 999_999,
    total: 9_999_999,
    sort: 'relevance',
    seed: 2 ** 31 - 2,
    owner: '12345678901234567890',
    issuedAt: Date.UTC(2100, 0, 1),
    private: true,
    grid: false,
  };

  it('GIVEN the widest state THEN every action id fits in 100 characters and decodes to the same state', () => {
    for (const action of ['prev', 'next', 'rand', 'pub'] as const) {
      const id = encodeSearchButton(action, widest);
      expect(id.length).toBeLessThanOrEqual(CUSTOM_ID_MAX);
      const decoded = decodeCustomId(id);
      expect(decoded?.key).toBe(`srch:${action}`);
      const state = searchButton.decodeWithSite(decoded!.args, [...KNOWN_SITES, local], local);
      expect(state).toEqual({ ...widest, issuedAt: Math.floor(widest.issuedAt / 1000) * 1000 });
    }
  });

  it('GIVEN every sort THEN it survives the round trip', () => {
    for (const sort of SORTS) {
      const state = { ...widest, site: derpibooru, sort, private: false };
      const args = decodeCustomId(encodeSearchButton('next', state))!.args;
      expect(searchButton.decodeWithSite(args, KNOWN_SITES, derpibooru)?.sort).toBe(sort);
    }
  });

  it('GIVEN a damaged id THEN it decodes to nothing', () => {
    const args = [...decodeCustomId(encodeSearchButton('next', { ...widest, site: derpibooru }))!.args];
    for (let i = 0; i < args.length; i += 1) {
      const broken = [...args];
      broken[i] = 'x!';
      expect(searchButton.decodeWithSite(broken, KNOWN_SITES, derpibooru)).toBeUndefined();
    }
    expect(searchButton.decodeWithSite(args.slice(0, 5), KNOWN_SITES, derpibooru)).toBeUndefined();
  });
});
