/**
 * `/me link`'s form and `/me unlink`, run as plain functions over the local board (test/support/commands.ts),
 * with a member key store sealed under a test secret (the command bed itself has none):
 * - hostile text in the form's field (control characters, huge text, URLs, key-shaped text) never crashes,
 *   is never echoed, and reaches nothing but the one site the form was for, and only as a key check;
 * - in the pseudo-locale every new answer, the form and the button fit Discord's limits and come from
 *   the catalogue.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeCommand } from '../../../commands/me/me.js';
import { KEY_FIELD } from '../../../commands/me/me-keys.js';
import { createMemberSettings } from '../../../commands/me/member-settings.js';
import type { ChatCommand, CommandContext } from '../../../commands/shared/context.js';
import { createMemberKeys, type MemberKeys } from '../../../commands/shared/member-keys.js';
import type { Reply } from '../../../src/discord/contract.js';
import { UserFacingError } from '../../../src/discord/failures.js';
import { createLogger } from '../../../src/logger.js';
import type { Site } from '../../../src/philomena/sites.js';
import { fakeInteraction, startCommandBed, type CommandBed } from '../../support/commands.js';
import { PSEUDO_LOCALE, PSEUDO_MARK, translatorWithPseudo } from '../../support/locales.js';

const CONTENT_MAX = 2000;
const MEMBER = fakeInteraction('me', {}, 'dm').user.id;

let bed: CommandBed;
let keys: MemberKeys;
let site: Site;
beforeAll(async () => {
  bed = await startCommandBed();
  keys = createMemberKeys({
    store: new Keyv(),
    logger: createLogger({ level: 'silent' }),
    secrets: { current: randomBytes(32).toString('base64') },
  });
  site = (await bed.context(fakeInteraction('me', {}, 'dm'))).sites.defaultSite;
});
afterAll(async () => {
  await bed.close();
});

/** The bed's context in the DM, with the sealed store, in `locale`, its member clients watched. */
async function contextFor(locale: string, memberClientSites: string[] = []): Promise<CommandContext> {
  const real = await bed.context(fakeInteraction('me', {}, 'dm'));
  return {
    ...real,
    locale,
    memberKeys: keys,
    registry: {
      ...real.registry,
      memberClient: (target, member) => {
        memberClientSites.push(target.id);
        return real.registry.memberClient(target, member);
      },
    },
  };
}

let made: ChatCommand | undefined;
/** One command for the file: its pseudo-locale translator is costly to build (every catalogue stretched). */
function command(): ChatCommand {
  if (made !== undefined) return made;
  const members = createMemberSettings({ store: new Keyv(), logger: createLogger({ level: 'silent' }) });
  made = createMeCommand({ members, translator: translatorWithPseudo(), defaultSite: site });
  return made;
}

/** Submits the form of the bot's own site with `text` in its field. */
function submit(text: string, context: CommandContext, locale = 'en-US'): Promise<Reply> {
  const handler = command().modals?.['melink:key'];
  if (handler === undefined) throw new Error('no link form handler');
  const interaction = {
    user: { id: MEMBER },
    locale,
    fields: { getTextInputValue: (id: string) => (id === KEY_FIELD ? text : '') },
  };
  return handler.run(interaction as never, ['~'], context);
}

function contentOf(reply: Reply): string {
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  return reply.body.content ?? '';
}

const HOSTILE = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ maxLength: 5000 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
  fc.constantFrom(
    'http://169.254.169.254/latest/meta-data',
    'https://evil.example/?key=AAAAAAAAAAAAAAAAAAAA',
    'javascript:alert(1)',
    '\u0000\u0007\u001b[31mAAAAAAAAAAAAAAAAAAAA',
    'AAAAAAAAAAAAAAAAAAAA\r\nX-Evil: 1',
    '../../../../etc/passwd',
    '@everyone',
    'A'.repeat(100_000),
  ),
);

describe('/me link form, hostile input', () => {
  it('GIVEN any text in the key field THEN a refusal or a link, never a crash, never echoed, and only a key check of the own site', async () => {
    await fc.assert(
      fc.asyncProperty(HOSTILE, async (text) => {
        const sites: string[] = [];
        const context = await contextFor('en-US', sites);
        const mark = bed.booru.requests.length;
        let said: string;
        try {
          said = contentOf(await submit(text, context));
        } catch (error) {
          expect(error).toBeInstanceOf(UserFacingError);
          if (!(error instanceof UserFacingError)) throw error;
          expect(['me.not-a-key', 'me.key-refused']).toContain(error.id);
          said = `${error.message} ${JSON.stringify(error.params ?? {})}`;
        }
        const trimmed = text.trim();
        if (trimmed.length >= 8) expect(said).not.toContain(trimmed);
        expect(sites.every((id) => id === site.id)).toBe(true);
        const sent = bed.booru.requests.slice(mark);
        expect(sent.length).toBeLessThanOrEqual(1);
        for (const request of sent) {
          expect(request.path).toBe('/api/v1/json/filters/user');
          expect(request.key).toBe(trimmed);
        }
        expect(await keys.sites(MEMBER)).toEqual([]);
      }),
      { numRuns: 100 },
    );
    // Each run may ask the local board once: generous for a loaded machine, and no figure is checked.
  }, 60_000);
});

describe('/me link in the pseudo-locale', () => {
  it('GIVEN /me link, the button, a linked key, /me show, unlink and forget THEN each is the catalogue stretched and within Discord limits', async () => {
    const context = await contextFor(PSEUDO_LOCALE);
    const me = command();
    const run = async (subcommand: string, values: Record<string, string> = {}) =>
      contentOf(await me.execute(fakeInteraction('me', values, 'dm', { subcommand }) as never, context));
    const expectPseudo = (text: string) => {
      expect(text.length).toBeLessThanOrEqual(CONTENT_MAX);
      for (const line of text.split('\n')) expect(line, text).toMatch(PSEUDO_MARK);
    };

    const intro = await me.execute(fakeInteraction('me', {}, 'dm', { subcommand: 'link' }) as never, context);
    expectPseudo(contentOf(intro));
    if (intro.kind !== 'message') throw new Error('no intro');
    const row = intro.body.components?.[0];
    const button = row !== undefined && 'components' in row ? row.components[0] : undefined;
    if (button === undefined || !('custom_id' in button) || !('label' in button))
      throw new Error('no button');
    expect(button.label?.length).toBeLessThanOrEqual(80);
    expect(button.label).toMatch(PSEUDO_MARK);

    const opened = me.buttons?.['melink:open']?.defer(
      { locale: PSEUDO_LOCALE, user: { id: MEMBER } } as never,
      button.custom_id.split(':').slice(2),
    );
    if (typeof opened !== 'object') throw new Error('the button opened no form');
    const { modal } = opened;
    expect(modal.custom_id).toBe('melink:key:~');
    expect(modal.title.length).toBeLessThanOrEqual(45);
    const label = modal.components[0];
    if (label === undefined || !('label' in label)) throw new Error('no label');
    expect(label.label.length).toBeLessThanOrEqual(45);
    expect((label.description ?? '').length).toBeLessThanOrEqual(100);
    expect(`${modal.title} ${label.label} ${label.description ?? ''}`).toMatch(PSEUDO_MARK);

    const account = bed.booru.addAccount({ name: 'PseudoMember' });
    const linked = contentOf(await submit(account.key, context, PSEUDO_LOCALE));
    expectPseudo(linked);
    expect(linked).toContain(account.key.slice(-4));
    expect(linked).not.toContain(account.key);
    const shown = await run('show');
    expectPseudo(shown);
    expect(shown).not.toContain(account.key);
    expectPseudo(await run('unlink', { site: 'default' }));
    expectPseudo(await run('unlink', { site: 'default' }));
    expect(contentOf(await submit(account.key, context, PSEUDO_LOCALE))).toMatch(PSEUDO_MARK);
    expectPseudo(await run('forget'));
    expect(await keys.sites(MEMBER)).toEqual([]);
  });
});
