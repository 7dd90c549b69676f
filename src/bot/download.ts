/**
 * Reads a Discord attachment into memory for reverse search, with a size cap checked both against the
 * announced length and while streaming (a server may lie or send no length). A network failure or the
 * timeout (before the answer or mid-body) is an expected failure: the member is asked to try again and
 * the cause rides along for the router's log line.
 */
import { UserFacingError } from './user-error.js';

export interface DownloadOptions {
  readonly maxBytes: number;
}

export const DOWNLOAD_FAILED_TEXT = 'Could not read that file. Try again.';

function downloadFailed(cause: unknown): UserFacingError {
  return new UserFacingError(DOWNLOAD_FAILED_TEXT, { cause });
}

export function createDownloader(options: { readonly timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return async function download(url: string, { maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      throw new UserFacingError('That file cannot be read.');
    }
    let response: Response;
    try {
      response = await fetch(parsed, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    } catch (error) {
      throw downloadFailed(error);
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      throw new UserFacingError('Discord did not hand over that file. Try again.');
    }
    const announced = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(announced) && announced > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new UserFacingError(`That file is too large (at most ${Math.floor(maxBytes / 1_000_000)} MB).`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body.getReader();
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        throw downloadFailed(error);
      }
      const { done, value } = next;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new UserFacingError(`That file is too large (at most ${Math.floor(maxBytes / 1_000_000)} MB).`);
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  };
}
