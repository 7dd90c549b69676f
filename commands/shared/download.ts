/**
 * Opens a Discord attachment as a byte stream for reverse search. Nothing is held in memory beyond the
 * chunk in flight: the reverse search streams it on to the board (held whole, a few files of 25 MB would
 * fill the process's memory), and the download starts only once the board's budget has granted the
 * request a slot.
 *
 * Only Discord's CDN hosts are read, over https (the bot fetches no URL a member chose); where
 * DISCORD_API_URL is a local address (the local Discord of the tests serves its attachments there), also
 * exactly that origin: its scheme, host and port, nothing else on that host (not a REST proxy's port,
 * say). A redirect is followed only to what may be read in the first place. The size cap is checked
 * against the announced length and again while streaming (a server may lie or send no length). A network
 * failure or the timeout (before the answer or mid-body) is an expected failure: the member is asked to
 * try again and the cause rides along for the router's log line.
 */
import { UserFacingError } from '../../src/discord/failures.js';
import { isLocalNetworkHost } from '../../src/philomena/sites.js';

export interface DownloadOptions {
  readonly maxBytes: number;
  /** Aborts the download (the reverse search gave up on it). */
  readonly signal?: AbortSignal;
}

/** Opens `url`; the returned stream throws a UserFacingError when the file is too large or breaks off. */
export type Download = (url: string, options: DownloadOptions) => Promise<AsyncIterable<Uint8Array>>;

export const DOWNLOAD_FAILED_TEXT = 'Could not read that file. Try again.';
export const NOT_READABLE_TEXT = 'That file cannot be read.';

/** Where Discord serves attachments (`attachment.url` and `proxy_url`), over https. */
export const DISCORD_CDN_HOSTS: readonly string[] = ['cdn.discordapp.com', 'media.discordapp.net'];

const MAX_REDIRECTS = 3;

function downloadFailed(cause: unknown): UserFacingError {
  return new UserFacingError('download.failed', DOWNLOAD_FAILED_TEXT, { cause });
}

function tooLarge(maxBytes: number): UserFacingError {
  const megabytes = Math.floor(maxBytes / 1_000_000);
  return new UserFacingError('file.too-large', `That file is too large (at most ${megabytes} MB).`, {
    params: { megabytes },
  });
}

export interface DownloaderOptions {
  /** For the whole download, headers and body; default 15 s. */
  readonly timeoutMs?: number;
  /**
   * What may be read; default Discord's CDN hosts. A host name (`cdn.discordapp.com`) is read over https on
   * its default port only; an origin (`http://127.0.0.1:4000`) at exactly that scheme, host and port.
   */
  readonly allowedHosts?: readonly string[];
}

/**
 * What a downloader reads: Discord's CDN hosts, plus, where the Discord API base is a local address (this
 * machine or a private network, the only place DISCORD_API_URL may be plain http: the local Discord of the
 * tests), exactly its origin. A remote API base (a hosted proxy) adds nothing: attachments come from the CDN.
 */
export function attachmentHosts(discordApiUrl: string | undefined): readonly string[] {
  if (discordApiUrl === undefined || !URL.canParse(discordApiUrl)) return DISCORD_CDN_HOSTS;
  const api = new URL(discordApiUrl);
  if (!isLocalNetworkHost(api.host) || (api.protocol !== 'http:' && api.protocol !== 'https:')) {
    return DISCORD_CDN_HOSTS;
  }
  return [...DISCORD_CDN_HOSTS, api.origin];
}

export function createDownloader(options: DownloaderOptions = {}): Download {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const entries = options.allowedHosts ?? DISCORD_CDN_HOSTS;
  // URL's own origin (lower-cased host, default port left out), so the comparison is exact.
  const origins = new Set(
    entries.filter((entry) => entry.includes('://')).map((entry) => new URL(entry).origin),
  );
  const httpsHosts = new Set(
    entries.filter((entry) => !entry.includes('://')).map((host) => host.toLowerCase()),
  );

  function readable(text: string, base?: URL): URL | undefined {
    const parsed = URL.canParse(text, base?.href) ? new URL(text, base) : undefined;
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      return undefined;
    if (parsed.username !== '' || parsed.password !== '') return undefined;
    if (origins.has(parsed.origin)) return parsed;
    const cdn = parsed.protocol === 'https:' && parsed.port === '' && httpsHosts.has(parsed.hostname);
    return cdn ? parsed : undefined;
  }

  return async function download(url, { maxBytes, signal }) {
    let target = readable(url);
    if (target === undefined) throw new UserFacingError('download.not-readable', NOT_READABLE_TEXT);
    // A timer holding its controller, not AbortSignal.timeout: a timeout signal referenced only through
    // AbortSignal.any may be garbage-collected before it fires (Node 20), and the download then never
    // times out (seen under load in CI).
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException('The download timed out', 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
    const stop = AbortSignal.any([timeout.signal, ...(signal ? [signal] : [])]);
    let response: Response | undefined;
    for (let hop = 0; response === undefined; hop += 1) {
      let answer: Response;
      try {
        answer = await fetch(target, { signal: stop, redirect: 'manual' });
      } catch (error) {
        throw downloadFailed(error);
      }
      if (answer.status < 300 || answer.status > 399) {
        response = answer;
        break;
      }
      await answer.body?.cancel().catch(() => undefined);
      const next = readable(answer.headers.get('location') ?? '', target);
      if (next === undefined || hop >= MAX_REDIRECTS)
        throw new UserFacingError('download.not-readable', NOT_READABLE_TEXT);
      target = next;
    }
    const { body } = response;
    if (!response.ok || body === null) {
      await body?.cancel().catch(() => undefined);
      throw new UserFacingError(
        'download.not-handed-over',
        'Discord did not hand over that file. Try again.',
      );
    }
    const announced = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(announced) && announced > maxBytes) {
      await body.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    return (async function* chunks(): AsyncGenerator<Uint8Array> {
      const reader = body.getReader();
      let total = 0;
      let done = false;
      try {
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            throw downloadFailed(error);
          }
          if (next.done) {
            done = true;
            return;
          }
          total += next.value.byteLength;
          if (total > maxBytes) throw tooLarge(maxBytes);
          yield next.value;
        }
      } finally {
        // Given up early (too large, broken off, or the reader stopped): release the connection.
        if (!done) await reader.cancel().catch(() => undefined);
      }
    })();
  };
}

/** The whole stream in one buffer: for tests and small files only (reverse search streams instead). */
export async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
