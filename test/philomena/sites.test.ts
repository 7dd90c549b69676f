import { describe, expect, it } from 'vitest';
import { createLinkRecogniser } from '../../src/philomena/links.js';
import { SiteUrlError } from '../../src/philomena/errors.js';
import { isLocalNetworkHost, KNOWN_SITES, knownSite, resolveSite } from '../../src/philomena/sites.js';

/** The table of docs/board-behaviour.md ("Sites"). */
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
    ['a host with a port', 'https://booru.example:8443', ['booru.example:8443', 'www.booru.example:8443']],
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

  it.each([
    ['plain http', 'http://derpibooru.org', 'derpibooru'],
    ['plain http with www.', 'http://www.derpibooru.org/', 'derpibooru'],
    ['plain http with its default port and a path', 'HTTP://Furbooru.org:80/images/1', 'furbooru'],
    ['an alias at plain http', 'http://trixiebooru.org', 'derpibooru'],
    ['an alias with www. at https', 'https://www.trixiebooru.org', 'derpibooru'],
    ['a path', 'https://tantabus.ai/search?q=safe', 'tantabus'],
  ])('GIVEN a known site at %s (%s) THEN it is the known https site', (_what, url, id) => {
    const site = resolveSite(url);
    expect(site).toBe(knownSite(id));
    expect(site.baseUrl).toMatch(/^https:\/\//);
  });
});

describe('plain http', () => {
  it.each([
    ['IPv4 loopback', 'http://127.0.0.1:4567'],
    ['anywhere in 127/8', 'http://127.200.3.4'],
    ['IPv4 loopback in another notation', 'http://0x7f.1:80'],
    ['IPv6 loopback', 'http://[::1]:4567'],
    ['IPv4 loopback mapped into IPv6', 'http://[::ffff:127.0.0.1]:4567'],
    ['localhost', 'http://localhost:3000'],
    ['a name under localhost', 'http://booru.localhost'],
    ['10/8', 'http://10.1.2.3'],
    ['the bottom of 172.16/12', 'http://172.16.0.1'],
    ['the top of 172.16/12', 'http://172.31.255.254:8080'],
    ['192.168/16', 'http://192.168.1.20:4000/booru'],
    ['IPv6 unique-local', 'http://[fd12:3456::7]'],
    ['IPv6 link-local', 'http://[fe80::1]'],
    ['an mDNS name', 'http://nas.local:4000'],
    ['a home.arpa name', 'http://booru.home.arpa'],
    ['an .internal name', 'http://booru.corp.internal'],
    ['a .test name', 'http://booru.test:4567'],
  ])('GIVEN %s (%s) THEN a local-network custom site over http', (_what, url) => {
    const site = resolveSite(url);
    expect(site.known).toBe(false);
    expect(site.baseUrl).toMatch(/^http:\/\//);
    expect(isLocalNetworkHost(site.host)).toBe(true);
  });

  it.each([
    ['a public host', 'http://booru.example'],
    ['a public host with www.', 'http://www.booru.example:8080'],
    ['a known host on another port', 'http://derpibooru.org:8080'],
    ['a public IPv4 address', 'http://8.8.8.8'],
    ['just below 172.16/12', 'http://172.15.255.255'],
    ['just above 172.16/12', 'http://172.32.0.1'],
    ['a look-alike of 10/8', 'http://100.1.2.3'],
    ['a look-alike of 192.168/16', 'http://192.169.0.1'],
    ['a public IPv6 address', 'http://[2001:db8::1]'],
    ['a public IPv4 mapped into IPv6', 'http://[::ffff:8.8.8.8]'],
    ['the unspecified address', 'http://0.0.0.0'],
    ['localhost as a label, not the name', 'http://localhost.example.com'],
    ['a name ending in "local" without the dot', 'http://notlocal'],
  ])('GIVEN %s (%s) THEN it is refused with "must be https"', (_what, url) => {
    let caught: unknown;
    try {
      resolveSite(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SiteUrlError);
    expect(caught).toMatchObject({ problem: 'insecure', code: 'SITE_URL_INVALID' });
    expect((caught as SiteUrlError).message).toMatch(/^a site URL must be https: http:\/\//);
  });

  it('GIVEN the same public hosts at https THEN they are custom sites', () => {
    expect(resolveSite('https://booru.example').baseUrl).toBe('https://booru.example');
    expect(resolveSite('https://8.8.8.8').baseUrl).toBe('https://8.8.8.8');
  });

  it.each([
    ['127.0.0.1:4567', true],
    ['[::1]:4567', true],
    ['::1', true],
    ['::ffff:192.168.0.1', true],
    ['LOCALHOST.', true],
    ['localhost:3000', true],
    ['fc00::1', true],
    ['fbff::1', false],
    ['fec0::1', false],
    ['fc::1', false],
    ['derpibooru.org', false],
    ['', false],
  ])('GIVEN the host %j THEN isLocalNetworkHost is %s', (host, expected) => {
    expect(isLocalNetworkHost(host)).toBe(expected);
  });

  it.each([
    ['nothing known', 'twibooru'],
    ['not http', 'ftp://derpibooru.org'],
    ['not http on a local host', 'ftp://127.0.0.1'],
    ['javascript', 'javascript:alert(1)'],
    ['credentials', 'https://user:pass@booru.example'],
    ['empty', ''],
  ])('GIVEN %s (%j) THEN a clear error', (_name, input) => {
    expect(() => resolveSite(input)).toThrow(SiteUrlError);
    expect(() => resolveSite(input)).toThrow(/known site|https|credentials/);
  });
});
