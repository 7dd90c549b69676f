/**
 * The owner of a search or reverse-search state is stored with the state and compared on every click
 * (not read from the custom_id alone). Discord refuses custom_ids that are not on the message, but the
 * custom_id is still written by a client: a click that names the clicker as owner while carrying another
 * member's token must not page that member's results.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import type { ButtonInteraction } from 'discord.js';
import type { CommandContext } from '../../commands/shared/context.js';
import { decodeCustomId, encodeCustomId, encodeTime, siteCode } from '../../src/discord/custom-id.js';
import { reverseButtons } from '../../commands/reverse/results.js';
import { encodeSearchButton, SEARCH_STATE_KIND } from '../../commands/search/codec.js';
import { searchButtons } from '../../commands/search/paging.js';
import { createButtonState } from '../../src/discord/button-state.js';
import { UserFacingError } from '../../src/discord/failures.js';
import { knownSite } from '../../src/philomena/sites.js';

const SITE = knownSite('derpibooru')!;
const OWNER = '111111111111111111';
const INTRUDER = '222222222222222222';
const NOW = Date.parse('2026-11-24T12:00:00Z');

function contextWith(state: ReturnType<typeof createButtonState>): CommandContext {
  // Only what a click reads before any board call: a refused click must stop before the registry.
  return {
    state,
    now: () => NOW,
    sites: { all: [SITE], defaultSite: SITE },
    registry: {
      client: () => {
        throw new Error('a refused click must not reach the board');
      },
    },
  } as unknown as CommandContext;
}

function click(userId: string): ButtonInteraction {
  return { user: { id: userId }, editReply: async () => undefined } as unknown as ButtonInteraction;
}

describe('paging state owned by the member who searched', () => {
  it('GIVEN a forged search click naming the intruder as owner with the owner’s token THEN refused before any board call', async () => {
    const state = createButtonState(new Keyv());
    const token = await state.put(SEARCH_STATE_KIND, { query: 'pony', owner: OWNER });
    const forged = encodeSearchButton('next', {
      site: SITE,
      token,
      page: 1,
      total: 5,
      sort: 'newest',
      seed: 7,
      owner: INTRUDER,
      issuedAt: NOW,
      private: false,
      grid: false,
    });
    const decoded = decodeCustomId(forged);
    const handler = searchButtons()[decoded?.key ?? ''];
    expect(handler?.defer(click(INTRUDER), decoded?.args ?? [])).toBe('update');
    await expect(handler?.run(click(INTRUDER), decoded?.args ?? [], contextWith(state))).rejects.toThrow(
      UserFacingError,
    );
  });

  it('GIVEN a forged reverse-search click with the owner’s token THEN refused before any board call', async () => {
    const state = createButtonState(new Keyv());
    const token = await state.put('reverse', { ids: [1, 2, 3], owner: OWNER });
    const forged = encodeCustomId('rev', 'next', [siteCode(SITE), token, 1, 3, INTRUDER, encodeTime(NOW)]);
    const decoded = decodeCustomId(forged);
    const handler = reverseButtons()[decoded?.key ?? ''];
    await expect(handler?.run(click(INTRUDER), decoded?.args ?? [], contextWith(state))).rejects.toThrow(
      /Only the person who searched/,
    );
  });

  it('GIVEN a state written before owners were stored THEN it reads as expired, never as anyone’s', async () => {
    const state = createButtonState(new Keyv());
    const token = await state.put(SEARCH_STATE_KIND, { query: 'pony' });
    const id = encodeSearchButton('next', {
      site: SITE,
      token,
      page: 1,
      total: 5,
      sort: 'newest',
      seed: 7,
      owner: INTRUDER,
      issuedAt: NOW,
      private: false,
      grid: false,
    });
    const decoded = decodeCustomId(id);
    const reply = await searchButtons()[decoded?.key ?? '']?.run(
      click(INTRUDER),
      decoded?.args ?? [],
      contextWith(state),
    );
    expect(reply).toMatchObject({ kind: 'expired', text: expect.stringMatching(/expired/) as unknown });
  });
});
