import { describe, expect, it } from 'vitest';
import { createLinkRecogniser } from '../../src/philomena/links.js';
import { KNOWN_SITES, knownSite, resolveSite } from '../../src/philomena/sites.js';

/** The table of philomena-behaviour.md ("Sites"). */
const TABLE: readonly [
  id: string,
  name: string,
  base: string,
  cdn: readonly string[],
  aliases: readonly string[],
][] = [
  ['derpibooru', 'Derpibooru', 'https://derpibooru.org', ['derpicdn.net'], ['trixiebooru.org']],
  ['furbooru', 'Furbooru', 'https://furbooru.org', ['furrycdn.org'], []],
  ['tantabus', 'Tantabus', 'https://tantabus.ai', ['tantabuscdn.net'], []],
  ['ponybooru', 'Ponybooru', 'https://ponybooru.org', ['cdn.ponybooru.org'], []],
  ['manebooru', 'Manebooru', 'https://manebooru.art', ['static.manebooru.art'], []],
  ['ponerpics', 'Ponerpics', 'https://ponerpics.org', [], []],
];

describe('known sites', () => {
  it('GIVEN the behaviour table THEN every site is known, and nothing else (Twibooru is not Philomena)', () => {
    expect(KNOWN_SITES.map((s) => s.id)).toEqual(TABLE.map(([id]) => id));
  });

  it.each(TABLE)(
    'GIVEN %s THEN its name, canonical domain, CDN hosts and aliases',
    (id, name, base, cdn, aliases) => {
      const site = knownSite(id);
      const host = new URL(base).host;
      expect(site).toMatchObject({ id, name, baseUrl: base, host, cdnHosts: cdn, known: true });
      expect(site?.hosts).toEqual(expect.arrayContaining([host, `www.${host}`, ...aliases]));
    },
  );

  it.each(TABLE)(
    'GIVEN the name %s in any case, or its URL THEN resolveSite selects it',
    (id, name, base) => {
      const site = knownSite(id);
      expect(resolveSite(id)).toBe(site);
      expect(resolveSite(name.toUpperCase())).toBe(site);
      expect(resolveSite(`  ${base}/  `)).toBe(site);
      expect(resolveSite(base.replace('https://', 'https://www.'))).toBe(site);
    },
  );

  it('GIVEN the Derpibooru alias host THEN it is Derpibooru', () => {
    expect(resolveSite('https://trixiebooru.org')).toBe(knownSite('derpibooru'));
  });
});

describe('other base URLs', () => {
  it('GIVEN any other https base THEN a custom site on it, with the given CDN hosts', () => {
    const site = resolveSite('https://Booru.Example/', { cdnHosts: ['Files.Example'], name: 'Example' });
    expect(site).toEqual({
      id: 'custom:booru.example',
      name: 'Example',
      baseUrl: 'https://booru.example',
      host: 'booru.example',
      hosts: ['booru.example', 'www.booru.example'],
      cdnHosts: ['files.example'],
      known: false,
    });
  });

  it('GIVEN a local http server with a port and a path THEN the base keeps http, the port and the path', () => {
    const site = resolveSite('http://127.0.0.1:8080/booru/');
    expect(site).toMatchObject({
      id: 'custom:127.0.0.1:8080/booru',
      baseUrl: 'http://127.0.0.1:8080/booru',
      host: '127.0.0.1:8080',
      known: false,
    });
  });

  it.each([
    ['an IPv4 literal with a port', 'http://127.0.0.1:4567', ['127.0.0.1:4567']],
    ['an IPv4 literal', 'https://10.0.0.2/', ['10.0.0.2']],
    ['an IPv4 literal in another notation', 'http://0x7f.1:80', ['127.0.0.1']],
    ['an IPv6 literal with a port', 'http://[::1]:4567', ['[::1]:4567']],
    ['an IPv6 literal', 'https://[2001:DB8::1]', ['[2001:db8::1]']],
    ['localhost', 'http://LocalHost:3000/booru', ['localhost:3000']],
    [
      'a host named by digits and a name',
      'https://1.2.3.4.example:8443',
      ['1.2.3.4.example:8443', 'www.1.2.3.4.example:8443'],
    ],
    ['a www host', 'https://www.booru.example', ['booru.example', 'www.booru.example']],
    ['a host with a port', 'http://booru.example:8080', ['booru.example:8080', 'www.booru.example:8080']],
  ])(
    'GIVEN a custom site on %s THEN its hosts are %j (no www. alias for IP literals or localhost)',
    (_what, url, hosts) => {
      expect(resolveSite(url).hosts).toEqual(hosts);
    },
  );

  it('GIVEN a custom site on an IP literal THEN its own links are recognised and a www. form of it is not', () => {
    const site = resolveSite('http://127.0.0.1:4567');
    const recognise = createLinkRecogniser([site]);
    expect(recognise('http://127.0.0.1:4567/images/5').map((l) => l.imageId)).toEqual([5]);
    expect(recognise('http://www.127.0.0.1:4567/images/5')).toEqual([]);
  });

  it('GIVEN a known site at plain http THEN it is a custom site (the known one is https only)', () => {
    const site = resolveSite('http://derpibooru.org');
    expect(site.known).toBe(false);
    expect(site.baseUrl).toBe('http://derpibooru.org');
    expect(site.cdnHosts).toEqual(['derpicdn.net']);
  });

  it.each([
    ['nothing known', 'twibooru'],
    ['not http', 'ftp://derpibooru.org'],
    ['javascript', 'javascript:alert(1)'],
    ['credentials', 'https://user:pass@booru.example'],
    ['empty', ''],
  ])('GIVEN %s (%j) THEN a clear error', (_name, input) => {
    expect(() => resolveSite(input)).toThrow(/known site|http|credentials/);
  });
});
