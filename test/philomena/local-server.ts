/**
 * A scripted HTTP server on 127.0.0.1 for transport and client tests: each request is recorded (its body
 * too, as it arrives) and answered by the next step, the last step answering every further request.
 * Every server is closed by `closeServers()` (call it in afterEach).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = (req: http.IncomingMessage, res: http.ServerResponse, index: number) => void;

export interface ServedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly remotePort: number | undefined;
  /** The whole body, once the client has sent it (or the connection ended). */
  readonly body: Promise<Buffer>;
}

export interface Served {
  readonly url: string;
  readonly requests: ServedRequest[];
  close(): Promise<void>;
}

const open: Served[] = [];

export async function closeServers(): Promise<void> {
  await Promise.all(open.splice(0).map((s) => s.close()));
}

export async function serve(...steps: Step[]): Promise<Served> {
  const requests: ServedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    const body = new Promise<Buffer>((resolve) => {
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('close', () => resolve(Buffer.concat(chunks)));
    });
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      remotePort: req.socket.remotePort,
      body,
    });
    const index = requests.length - 1;
    const step = steps[Math.min(index, steps.length - 1)];
    step?.(req, res, index);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const served: Served = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(served);
  return served;
}

/** Answers `body` as JSON once the request body has been read whole. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  };

export const empty =
  (status: number, headers: Record<string, string> = {}): Step =>
  (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, headers);
      res.end();
    });
  };

/** Never answers (the connection stays open until the server closes). */
export const hang: Step = (req) => {
  req.resume();
};

/** The file part named `field` of a multipart/form-data body, parsed by hand (no library involved). */
export function multipartFile(
  body: Buffer,
  contentType: string | undefined,
  field: string,
): { filename: string; contentType: string; data: Buffer } | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  const mark = boundary?.[1] ?? boundary?.[2];
  if (mark === undefined) return undefined;
  const delimiter = Buffer.from(`\r\n--${mark}`);
  // The first delimiter has no CRLF before it.
  let at = body.indexOf(`--${mark}`);
  while (at >= 0) {
    const partStart = body.indexOf('\r\n', at) + 2;
    const headerEnd = body.indexOf('\r\n\r\n', partStart);
    const next = body.indexOf(delimiter, headerEnd);
    if (partStart < 2 || headerEnd < 0 || next < 0) return undefined;
    const headers = body.subarray(partStart, headerEnd).toString('utf8');
    if (new RegExp(`name="${field.replace(/[[\]]/g, '\\$&')}"`).test(headers)) {
      return {
        filename: /filename="([^"]*)"/.exec(headers)?.[1] ?? '',
        contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? '',
        data: body.subarray(headerEnd + 4, next),
      };
    }
    at = next + 2;
  }
  return undefined;
}
