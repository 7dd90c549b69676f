/**
 * The Philomena sites we know, selectable by name, and any other base URL. Each site knows its canonical
 * domain (for links to image pages) and its CDN hosts (for recognising thumbnail links).
 */
import { isIP } from 'node:net';
import { SiteUrlError } from './errors.js';

export interface Site {
  /** Stable id used in settings and cache keys: `derpibooru`, ... or `custom:<host[:port]>`. */
  readonly id: string;
  /** Display name, e.g. "Derpibooru". */
  readonly name: string;
  /** Base URL without a trailing slash, e.g. `https://derpibooru.org`. */
  readonly baseUrl: string;
  /** The canonical host (with port where the base has one), e.g. `derpibooru.org`. */
  readonly host: string;
  /** Every host whose links are this site's: canonical, aliases, `www.` forms. Lower case. */
  readonly hosts: readonly string[];
  /** CDN hosts serving `/img/...` files. Lower case. */
  readonly cdnHosts: readonly string[];
  /** True for one of the table's sites. */
  readonly known: boolean;
}

interface KnownSiteSpec {
  id: string;
  name: string;
  host: string;
  aliases?: string[];
  cdnHosts: string[];
}

const KNOWN: readonly KnownSiteSpec[] = [
  {
    id: 'derpibooru',
    name: 'Derpibooru',
    host: 'derpibooru.org',
    aliases: ['trixiebooru.org'],
    cdnHosts: ['derpicdn.net'],
  },
  { id: 'furbooru', name: 'Furbooru', host: 'furbooru.org', cdnHosts: ['furrycdn.org'] },
  { id: 'tantabus', name: 'Tantabus', host: 'tantabus.ai', cdnHosts: ['tantabuscdn.net'] },
  { id: 'ponybooru', name: 'Ponybooru', host: 'ponybooru.org', cdnHosts: ['cdn.ponybooru.org'] },
  { id: 'manebooru', name: 'Manebooru', host: 'manebooru.art', cdnHosts: ['static.manebooru.art'] },
  { id: 'ponerpics', name: 'Ponerpics', host: 'ponerpics.org', cdnHosts: [] },
];

/** The host name of a URL host: port dropped, IPv6 brackets kept off. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  return host.replace(/:\d*$/, '');
}

/**
 * Whether `www.` in front of `host` can name the same server: not for IP literals (v4, or v6 in brackets)
 * nor `localhost`, where `www.127.0.0.1` is just some other name that no one serves.
 */
function takesWww(host: string): boolean {
  const name = hostName(host);
  return !name.startsWith('www.') && name !== 'localhost' && isIP(name) === 0;
}

function withWww(hosts: readonly string[]): string[] {
  return hosts.flatMap((h) => (takesWww(h) ? [h, `www.${h}`] : [h]));
}

export const KNOWN_SITES: readonly Site[] = KNOWN.map((spec) => ({
  id: spec.id,
  name: spec.name,
  baseUrl: `https://${spec.host}`,
  host: spec.host,
  hosts: withWww([spec.host, ...(spec.aliases ?? [])]),
  cdnHosts: [...spec.cdnHosts],
  known: true,
}));

export function knownSite(id: string): Site | undefined {
  return KNOWN_SITES.find((site) => site.id === id);
}

/**
 * Names public DNS never resolves: `localhost` (RFC 6761: loopback), `.test` (RFC 6761), `.local` (mDNS,
 * RFC 6762), `.home.arpa` (RFC 8375) and `.internal` (ICANN, for private use). Such a name reaches only what
 * this machine or its own network is set up to serve, like a private address does.
 */
const LOCAL_SUFFIXES = ['localhost', 'test', 'local', 'home.arpa', 'internal'] as const;

function privateIpv4(address: string): boolean {
  const [a = -1, b = -1] = address.split('.').map(Number);
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** `::ffff:7f00:1` (as the URL parser writes it) or `::ffff:127.0.0.1` as the IPv4 address it maps. */
function mappedIpv4(address: string): string | undefined {
  const rest = /^::ffff:(.+)$/.exec(address)?.[1];
  if (rest === undefined) return undefined;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] ?? '', 16);
  const low = Number.parseInt(hex[2] ?? '', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Whether plain http to `host` (a URL host, port and IPv6 brackets allowed) stays on this machine or a
 * private network: loopback (127.0.0.0/8, ::1), 10/8, 172.16/12, 192.168/16, IPv6 unique-local (fc00::/7)
 * and link-local (fe80::/10), and the names of {@link LOCAL_SUFFIXES}. Only such a site may be http: the
 * API key travels with every request, and its links are shown to members.
 */
export function isLocalNetworkHost(host: string): boolean {
  const raw = host.trim().toLowerCase();
  const name = (isIP(raw) === 6 ? raw : hostName(raw)).replace(/\.$/, '');
  switch (isIP(name)) {
    case 4:
      return privateIpv4(name);
    case 6: {
      const mapped = mappedIpv4(name);
      if (mapped !== undefined) return privateIpv4(mapped);
      return name === '::1' || /^f[cd][0-9a-f]{2}:/.test(name) || /^fe[89ab][0-9a-f]:/.test(name);
    }
    default:
      return LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  }
}

/**
 * A site from a known name (`derpibooru`, case-insensitive), a known site's URL (any scheme, with or
 * without `www.`: always the known https site), or any other https base URL (`https://booru.example`).
 * Plain http is accepted only for a server on this machine or a private network
 * (`http://127.0.0.1:8080`, `http://192.168.1.20`; see {@link isLocalNetworkHost}), since the API key
 * would otherwise cross the internet in cleartext. Throws a {@link SiteUrlError} on anything else.
 */
export function resolveSite(
  nameOrUrl: string,
  options: { cdnHosts?: readonly string[]; name?: string } = {},
): Site {
  const input = nameOrUrl.trim();
  const byName = knownSite(input.toLowerCase());
  if (byName) return byName;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SiteUrlError(
      `"${input}" is neither a known site (${KNOWN_SITES.map((s) => s.id).join(', ')}) nor a URL`,
      'unknown',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SiteUrlError(`a site URL must be https, not ${url.protocol}`, 'not-http');
  }
  if (url.username || url.password) {
    throw new SiteUrlError('a site URL must not contain credentials', 'credentials');
  }
  const host = url.host.toLowerCase();
  const bare = host.replace(/^www\./, '');
  const known = KNOWN_SITES.find((site) => site.hosts.includes(host) || site.hosts.includes(bare));
  if (known) return known;
  if (url.protocol === 'http:' && !isLocalNetworkHost(host)) {
    throw new SiteUrlError(
      `a site URL must be https: http://${host} would send the API key and show links in cleartext (plain http is only for a server on this machine or a private network)`,
      'insecure',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return {
    id: `custom:${host}${path}`,
    name: options.name ?? bare,
    baseUrl: `${url.protocol}//${host}${path}`,
    host,
    hosts: withWww([bare]),
    cdnHosts: (options.cdnHosts ?? []).map((h) => h.toLowerCase()),
    known: false,
  };
}
