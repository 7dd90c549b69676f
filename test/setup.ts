/**
 * Network guard: every test runs with outbound connections limited to loopback. A connection to any other
 * address fails at once with ETESTNETWORK, before DNS is even asked, so no test can reach the internet.
 */
import net from 'node:net';
import fc from 'fast-check';

const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|::1|\[::1\]|localhost|::ffff:127(?:\.\d{1,3}){3})$/i;

export function isLoopbackHost(host: string | undefined): boolean {
  return host === undefined || host === '' || LOOPBACK.test(host);
}

type ConnectArgs = Parameters<net.Socket['connect']>;
const guardFlag = Symbol.for('philomena-bot.network-guard');
const proto = net.Socket.prototype as net.Socket & { [guardFlag]?: true };

if (!proto[guardFlag]) {
  proto[guardFlag] = true;
  const original = proto.connect;
  proto.connect = function guardedConnect(this: net.Socket, ...args: ConnectArgs): net.Socket {
    // net.connect() hands a normalised [options, callback] array; direct calls pass (options|port, host?, cb?).
    const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let host: string | undefined;
    let path: string | undefined;
    if (typeof first === 'object' && first !== null) {
      const options = first as { host?: string; path?: string };
      host = options.host;
      path = options.path;
    } else if (typeof args[1] === 'string') {
      host = args[1];
    }
    if (path === undefined && !isLoopbackHost(host)) {
      const error = Object.assign(new Error(`test network guard: connection to ${String(host)} refused`), {
        code: 'ETESTNETWORK',
      });
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return original.apply(this, args);
  } as typeof proto.connect;
}

/**
 * Property tests (fast-check) explore new inputs on every local run. CI runs them with one fixed seed so
 * its verdict depends on the code alone; FC_SEED replays a failure that a local run printed.
 */
const seedText = process.env['FC_SEED'] ?? (process.env['CI'] === 'true' ? '20261122' : undefined);
if (seedText !== undefined && seedText.trim() !== '') {
  const seed = Number(seedText);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be a whole number, got "${seedText}"`);
  fc.configureGlobal({ seed });
}
