/**
 * Sealing members' board keys (commands/shared/key-sealing.ts): AES-256-GCM with the member and the site
 * bound in, a fresh nonce per seal, the previous secret accepted for opening only, and a plain key that
 * shows as "[member key]" wherever it is turned into text.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeySealer, MemberKey, sealedKeySchema } from '../../../commands/shared/key-sealing.js';

const secret = () => randomBytes(32).toString('base64');
const boardKey = () => randomBytes(15).toString('base64url');

describe('key sealing', () => {
  it('GIVEN a key sealed for a member and site THEN it opens for them with the current secret AND the sealed form is base64 fields of format 1', () => {
    const sealer = createKeySealer({ current: secret() });
    const key = boardKey();
    const sealed = sealer.seal('1001', 'derpibooru', new MemberKey(key));
    expect(sealedKeySchema.parse(sealed)).toEqual(sealed);
    expect(sealed.v).toBe(1);
    expect(Buffer.from(sealed.nonce, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    const opened = sealer.open('1001', 'derpibooru', sealed);
    expect(opened?.key.reveal()).toBe(key);
    expect(opened?.openedWith).toBe('current');
  });

  it('GIVEN any key THEN it round-trips AND its sealed form does not contain it', () => {
    const sealer = createKeySealer({ current: secret() });
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/), (key) => {
        const sealed = sealer.seal('7', 'furbooru', new MemberKey(key));
        expect(sealer.open('7', 'furbooru', sealed)?.key.reveal()).toBe(key);
        // The whole key only: a 5-character run of random base64 turns up by chance once in a few thousand
        // runs of this property (member-keys.test.ts checks the runs of one fixed key in the raw store).
        expect(JSON.stringify(sealed)).not.toContain(key);
      }),
      { numRuns: 50 },
    );
  });

  it('GIVEN the same key sealed twice THEN each seal has its own nonce and ciphertext', () => {
    const sealer = createKeySealer({ current: secret() });
    const key = new MemberKey(boardKey());
    const first = sealer.seal('1', 'derpibooru', key);
    const second = sealer.seal('1', 'derpibooru', key);
    expect(second.nonce).not.toBe(first.nonce);
    expect(second.data).not.toBe(first.data);
  });

  it('GIVEN a sealed key moved to another member or another site THEN it does not open', () => {
    const sealer = createKeySealer({ current: secret() });
    const sealed = sealer.seal('1001', 'derpibooru', new MemberKey(boardKey()));
    expect(sealer.open('1002', 'derpibooru', sealed)).toBeUndefined();
    expect(sealer.open('1001', 'furbooru', sealed)).toBeUndefined();
    // Ids that would run together if the binding simply concatenated them.
    expect(sealer.open('100', '1derpibooru', sealed)).toBeUndefined();
  });

  it('GIVEN a changed byte in the nonce, the data or the tag THEN it does not open', () => {
    const sealer = createKeySealer({ current: secret() });
    const sealed = sealer.seal('1', 'derpibooru', new MemberKey(boardKey()));
    const flip = (field: string) => {
      const bytes = Buffer.from(field, 'base64');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64');
    };
    expect(sealer.open('1', 'derpibooru', { ...sealed, nonce: flip(sealed.nonce) })).toBeUndefined();
    expect(sealer.open('1', 'derpibooru', { ...sealed, data: flip(sealed.data) })).toBeUndefined();
    expect(sealer.open('1', 'derpibooru', { ...sealed, tag: flip(sealed.tag) })).toBeUndefined();
  });

  it('GIVEN a key sealed with A THEN B with previous A opens it as previous AND B alone or another secret does not', () => {
    const a = secret();
    const b = secret();
    const key = boardKey();
    const sealed = createKeySealer({ current: a }).seal('5', 'tantabus', new MemberKey(key));
    const rotated = createKeySealer({ current: b, previous: a }).open('5', 'tantabus', sealed);
    expect(rotated?.key.reveal()).toBe(key);
    expect(rotated?.openedWith).toBe('previous');
    expect(createKeySealer({ current: b }).open('5', 'tantabus', sealed)).toBeUndefined();
    expect(createKeySealer({ current: b, previous: secret() }).open('5', 'tantabus', sealed)).toBeUndefined();
  });

  it('GIVEN a rotation THEN sealing always uses the current secret (never the previous one)', () => {
    const a = secret();
    const b = secret();
    const sealed = createKeySealer({ current: b, previous: a }).seal('5', 'x', new MemberKey(boardKey()));
    expect(createKeySealer({ current: b }).open('5', 'x', sealed)?.openedWith).toBe('current');
    expect(createKeySealer({ current: a }).open('5', 'x', sealed)).toBeUndefined();
  });

  it('GIVEN a secret that is not 32 bytes of base64 THEN the sealer refuses it without repeating it', () => {
    const short = randomBytes(31).toString('base64');
    expect(() => createKeySealer({ current: short })).toThrow(/^MEMBER_KEY_SECRET must be 32 bytes/);
    try {
      createKeySealer({ current: secret(), previous: short });
    } catch (error) {
      expect(String(error)).toMatch(/MEMBER_KEY_SECRET_PREVIOUS must be 32 bytes/);
      expect(String(error)).not.toContain(short);
      return;
    }
    throw new Error('expected a refusal');
  });

  it('GIVEN a MemberKey THEN text, JSON, inspection and spreading never show the key; reveal and hint do', () => {
    const key = boardKey();
    const member = new MemberKey(key);
    const holder = { userId: '1', key: member, nested: [member] };
    for (const text of [
      String(member),
      `${member}`,
      JSON.stringify(holder),
      inspect(holder, { depth: 5, showHidden: true }),
      JSON.stringify({ ...member }),
    ]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(0, 5));
    }
    expect(JSON.stringify(holder)).toContain('[member key]');
    expect(member.reveal()).toBe(key);
    expect(member.hint).toBe(key.slice(-4));
  });
});
