/**
 * The Philomena sites we know, selectable by name, and any other base URL. Each site knows its canonical
 * domain (for links to image pages) and its CDN hosts (for recognising thumbnail links).
 */
import { isIP } from 'node:net';

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
 * A site from a known name (`derpibooru`, case-insensitive), a known site's URL, or any other base URL
 * (`https://booru.example`, or `http://127.0.0.1:8080` for a local server). Throws on anything else.
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
    throw new Error(
      `"${input}" is neither a known site (${KNOWN_SITES.map((s) => s.id).join(', ')}) nor a URL`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`a site URL must be http(s), not ${url.protocol}`);
  }
  if (url.username || url.password) throw new Error('a site URL must not contain credentials');
  const host = url.host.toLowerCase();
  const bare = host.replace(/^www\./, '');
  const known = KNOWN_SITES.find((site) => site.hosts.includes(host) || site.hosts.includes(bare));
  if (known && url.protocol === 'https:') return known;
  const path = url.pathname.replace(/\/+$/, '');
  return {
    id: `custom:${host}${path}`,
    name: options.name ?? known?.name ?? bare,
    baseUrl: `${url.protocol}//${host}${path}`,
    host,
    hosts: withWww([bare]),
    cdnHosts: [...(options.cdnHosts ?? known?.cdnHosts ?? [])].map((h) => h.toLowerCase()),
    known: false,
  };
}
