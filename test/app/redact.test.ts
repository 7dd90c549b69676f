import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactUrl, scrubError } from '../../src/redact.js';

const KEY = 'a+b/c=d&e"f\\g';

describe('createRedactor', () => {
  const redact = createRedactor([KEY, undefined, 'abc']);

  it.each([
    ['the raw value', `x ${KEY} y`],
    ['percent-encoded', `x ${encodeURIComponent(KEY)} y`],
    ['JSON-escaped', JSON.stringify({ k: KEY })],
    ['a key= parameter of any value', '/api?q=1&key=whatever-else&page=2'],
    ['a token= parameter', 'https://x.test/?token=t0k3n'],
  ])('GIVEN %s THEN it is gone', (_name, text) => {
    const out = redact(text);
    expect(out).toContain(REDACTED);
    for (const form of [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)]) {
      expect(out).not.toContain(form);
    }
    expect(out).not.toMatch(/(?:key|token)=(?!\[REDACTED\])/);
  });

  it('GIVEN secrets shorter than 4 characters THEN they are not scrubbed (they would shred every text)', () => {
    expect(redact('abc def')).toBe('abc def');
  });

  it('GIVEN text without secrets THEN it is unchanged', () => {
    expect(redact('/api/v1/json/images/1?filter_id=56027')).toBe('/api/v1/json/images/1?filter_id=56027');
  });
});

describe('interaction tokens in URL paths', () => {
  const redact = createRedactor([]);
  const token = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZg.x-Y_z';

  it.each([
    ['a webhook edit URL', `https://discord.com/api/v10/webhooks/123456789/${token}/messages/%40original`],
    ['a follow-up route', `/webhooks/123/${token}`],
    ['an interaction callback', `https://discord.com/api/v10/interactions/987/${token}/callback`],
    ['a JSON log line', JSON.stringify({ err: { url: `/api/v10/webhooks/1/${token}/messages/@original` } })],
  ])('GIVEN %s THEN the token segment is gone and the ids stay', (_name, text) => {
    for (const out of [redact(text), redactUrl(text)]) {
      expect(out).not.toContain(token);
      expect(out).toMatch(/\/(?:webhooks|interactions)\/\d+\/\[REDACTED\]/);
    }
  });

  it('GIVEN other Discord routes THEN they are unchanged', () => {
    const text = '/api/v10/channels/123/messages/456 /webhooks/abc';
    expect(redact(text)).toBe(text);
  });
});

describe('redactUrl', () => {
  it('GIVEN a URL with key= among other parameters THEN only the key value is replaced', () => {
    expect(redactUrl('https://derpibooru.org/api/v1/json/images/1?filter_id=5&key=SECRET#x')).toBe(
      'https://derpibooru.org/api/v1/json/images/1?filter_id=5&key=[REDACTED]#x',
    );
  });
});

describe('scrubError', () => {
  it('GIVEN an error quoting the key, with a cause chain THEN a new error with the redacted message, its name and code, and no cause', () => {
    const original = Object.assign(
      new TypeError(`fetch https://x.test/?key=${encodeURIComponent(KEY)} failed`, {
        cause: new Error(KEY),
      }),
      { code: 'UND_ERR_CONNECT' },
    );
    const scrubbed = scrubError(original, createRedactor([KEY]));
    expect(scrubbed).not.toBe(original);
    expect(scrubbed.name).toBe('TypeError');
    expect(scrubbed).toMatchObject({ code: 'UND_ERR_CONNECT' });
    expect(scrubbed.cause).toBeUndefined();
    expect(`${scrubbed.message}\n${scrubbed.stack ?? ''}`).not.toContain(encodeURIComponent(KEY));
    expect(scrubbed.message).toContain('key=[REDACTED]');
  });

  it('GIVEN a thrown non-Error THEN its text, redacted', () => {
    expect(scrubError(`boom ${KEY}`, createRedactor([KEY])).message).toBe(`boom ${REDACTED}`);
  });
});
