/**
 * Reads a Discord attachment into memory for reverse search, with a size cap checked both against the
 * announced length and while streaming (a server may lie or send no length).
 */
import { UserFacingError } from './user-error.js';

export interface DownloadOptions {
  readonly maxBytes: number;
}

export function createDownloader(options: { readonly timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return async function download(url: string, { maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw new UserFacingError('That file cannot be read.');
    }
    const response = await fetch(parsed, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
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
      const { done, value } = await reader.read();
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
