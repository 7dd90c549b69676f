/**
 * Request bodies the transport streams from a source as it sends them (so a large upload is never held in
 * memory whole), and the one kind the client makes: a `multipart/form-data` body of one file.
 */
import { randomBytes } from 'node:crypto';

/** A body read from a source as it is sent, so a large upload is never held in memory whole. */
export interface StreamedBody {
  /** The Content-Type header, e.g. `multipart/form-data; boundary=...`. */
  readonly contentType: string;
  /** Bytes of the whole body when known: sent as Content-Length; otherwise the body goes chunked. */
  readonly length?: number;
  /**
   * Opens the body for one attempt, after its budget slot is granted. `signal` aborts when the attempt
   * ends early (timeout, caller abort). What this or the stream throws reaches the caller as it is.
   */
  open(signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}

/** One file sent as a `multipart/form-data` body of one field, streamed from its source. */
export interface MultipartFile {
  /** The form field, e.g. `image[image]`. */
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  /** The file's exact size when known: the body then has a Content-Length, and a source that delivers
   *  another number of bytes fails the call with a RangeError. */
  readonly size?: number;
  /** The source is cut and the call fails with a RangeError past this many bytes. */
  readonly maxBytes?: number;
  /** Opens the file's bytes for one attempt. */
  open(signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}

/** Quotes a header parameter the way browsers encode FormData: no quote or line break gets through. */
function headerParam(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * `file` as a streamed multipart body: a part header, the bytes as they come from the source (nothing
 * buffered, nothing copied), the closing boundary. A random boundary per body: a file that happened to hold
 * it would be cut short, which 128 random bits make a non-event.
 */
export function multipartFileBody(file: MultipartFile): StreamedBody {
  const boundary = `----philomena-bot-${randomBytes(16).toString('hex')}`;
  // A header value: no control character (a line break would start a header of the caller's choosing).
  const type =
    [...file.contentType].filter((c) => c >= ' ' && c !== '\u007f').join('') || 'application/octet-stream';
  const head = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${headerParam(file.field)}"; filename="${headerParam(file.filename)}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  const { size, maxBytes } = file;
  async function* parts(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    yield head;
    let sent = 0;
    for await (const chunk of source) {
      sent += chunk.byteLength;
      if (maxBytes !== undefined && sent > maxBytes) {
        throw new RangeError(`the file is larger than ${maxBytes} bytes`);
      }
      if (size !== undefined && sent > size) {
        throw new RangeError(`the file is larger than its announced ${size} bytes`);
      }
      if (chunk.byteLength > 0) yield chunk;
    }
    if (size !== undefined && sent !== size) {
      throw new RangeError(`the file has ${sent} bytes, not the announced ${size}`);
    }
    yield tail;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    ...(size === undefined ? {} : { length: head.byteLength + size + tail.byteLength }),
    async open(signal) {
      return parts(await file.open(signal));
    },
  };
}
