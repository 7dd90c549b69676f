import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';

const KEY = 'booru-key-"quoted"-0123';
const TOKEN = 'MTIz.discord.token-xyz';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'debug', secrets: [KEY, TOKEN], destination }) };
}

describe('createLogger', () => {
  it('GIVEN secrets in fields, nested config, messages, URLs, errors and their causes THEN no line holds them and every line is JSON', () => {
    const { lines, logger } = capture();
    logger.info({ apiKey: KEY, token: TOKEN }, 'fields by name');
    logger.info({ config: { booruApiKey: KEY, discordToken: TOKEN } }, 'nested config');
    logger.info({ anything: { deep: [`value ${KEY}`] } }, `message with ${TOKEN}`);
    logger.warn({ url: `https://derpibooru.org/api/v1/json/images/1?key=${encodeURIComponent(KEY)}` }, 'url');
    logger.warn({ url: 'https://derpibooru.org/api/v1/json/images/1?key=not-a-known-secret' }, 'any key=');
    logger.error({ err: new Error(`failed with ${KEY}`, { cause: new Error(`inner ${TOKEN}`) }) }, 'error');
    logger.child({ token: TOKEN, guildId: '1' }).info('child bindings');
    expect(lines).toHaveLength(7);
    const all = lines.join('\n');
    for (const secret of [KEY, TOKEN, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toContain('not-a-known-secret');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ apiKey: '[REDACTED]', token: '[REDACTED]', msg: 'fields by name' });
    expect(parsed[5]).toMatchObject({ err: { type: 'Error' } });
  });

  it('GIVEN a level THEN lower levels are not written', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['loud']);
  });
});
