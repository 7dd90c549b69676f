/**
 * The local Philomena's multipart/form-data reader: text parts join the request's params, file parts
 * (reverse search's `image[image]`) become `RequestContext.files`. It reads well-formed bodies only: a
 * missing boundary or an unterminated part ends the parse with what was read so far.
 */

export interface UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

/** Text fields in order (a name may repeat); files by field name (the last part of a name wins). */
export function parseMultipart(
  body: Buffer,
  contentType: string,
): {
  fields: [string, string][];
  files: Map<string, UploadedFile>;
} {
  const fields: [string, string][] = [];
  const files = new Map<string, UploadedFile>();
  const boundaryMatch = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = boundaryMatch?.[1] ?? boundaryMatch?.[2];
  if (!boundary) return { fields, files };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const partStart = start + delimiter.length;
    if (body.subarray(partStart, partStart + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, partStart);
    if (next === -1) break;
    // Part: CRLF headers CRLF CRLF data CRLF
    const part = body.subarray(partStart + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const data = part.subarray(headerEnd + 4);
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? 'application/octet-stream';
      if (name !== undefined) {
        if (filename !== undefined) files.set(name, { filename, contentType: type.trim(), data });
        else fields.push([name, data.toString('utf8')]);
      }
    }
    start = next;
  }
  return { fields, files };
}
