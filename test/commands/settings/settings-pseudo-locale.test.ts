/**
 * Every answer of `/settings` (show, tags, channel, reset, references, site) and of the tag checks in the
 * pseudo-locale (src/i18n/pseudo.ts: English about 40% longer and accented): each comes from the
 * catalogue, and each stays within Discord's limits (2,000 characters of content, 100 per button label).
 * The longest answers (`/settings show` with full tag lists) are cut in their tag lists, never in what
 * comes before them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { panelBody } from '../../../commands/settings/panel.js';
import { form } from '../../../commands/settings/panel-form.js';
import { resetQuestion } from '../../../commands/settings/reset.js';
import { describeScope } from '../../../commands/settings/show.js';
import type { GuildSettingsRecord } from '../../../commands/shared/guild-settings.js';
import { sayIn, type Say } from '../../../commands/shared/say.js';
import { createSiteDirectory, type SiteDirectory } from '../../../commands/shared/site-directory.js';
import { changeLists, listsChangeText } from '../../../commands/shared/tag-changes.js';
import { tagCheckNotes, TAG_LIST_MAX, type TagCheck } from '../../../commands/shared/tag-lists.js';
import { textReply } from '../../../commands/shared/text-reply.js';
import type { Reply } from '../../../src/discord/contract.js';
import { createTranslator, loadCatalogues } from '../../../src/i18n/index.js';
import { PSEUDO_LOCALE, pseudoCatalogue } from '../../../src/i18n/pseudo.js';
import { KNOWN_SITES, type Site } from '../../../src/philomena/sites.js';

function knownSite(index: number): Site {
  const site = KNOWN_SITES[index];
  if (site === undefined) throw new Error(`no known site ${index}`);
  return site;
}
const FIRST_SITE = knownSite(0);
const OTHER_SITE = knownSite(1);
const CONTENT_MAX = 2000;
const LABEL_MAX = 100;
const PLACEHOLDER_MAX = 150;
const OPTION_LABEL_MAX = 100;
const MODAL_TITLE_MAX = 45;
/** Every word of a pseudo-locale message carries one of these (accents, or the padding dots). */
const PSEUDO = /[·áéíóúŕšţ]/;

let say: Say;
let sites: SiteDirectory;
beforeAll(() => {
  const catalogues = new Map(loadCatalogues());
  const english = catalogues.get('en-US');
  if (english === undefined) throw new Error('no English catalogue');
  catalogues.set(PSEUDO_LOCALE, pseudoCatalogue(english));
  say = sayIn(PSEUDO_LOCALE, createTranslator(catalogues));
  sites = createSiteDirectory({ defaultSite: FIRST_SITE, defaultFilterId: 100073 });
});

/** Long tag names (60 characters, the most a line shows of one). */
function longTags(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${String(i).padStart(3, '0')} `.padEnd(60, 'x'));
}

/** Everything a server can set, each at its bound. */
function fullRecord(): GuildSettingsRecord {
  const channels = Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [
      String(100000000000000000n + BigInt(i)),
      { unfurl: false, imageReferences: false, filters: { [FIRST_SITE.id]: 56027 } },
    ]),
  );
  return {
    siteId: OTHER_SITE.id,
    filters: Object.fromEntries(KNOWN_SITES.map((site) => [site.id, 56027])),
    imageReferences: false,
    hiddenTags: longTags(TAG_LIST_MAX, 'hidden'),
    spoileredTags: longTags(TAG_LIST_MAX, 'spoilered'),
    channels: {
      ...channels,
      '200000000000000000': {
        siteId: OTHER_SITE.id,
        hiddenTags: longTags(TAG_LIST_MAX, 'channel hidden'),
        spoileredTags: longTags(TAG_LIST_MAX, 'channel spoilered'),
      },
    },
  };
}

function contentOf(reply: Reply): string {
  if (reply.kind !== 'message') throw new Error(`not a message: ${reply.kind}`);
  return reply.body.content ?? '';
}

function labelsOf(reply: Reply): string[] {
  return (
    JSON.stringify(reply)
      .match(/"label":"[^"]*"/g)
      ?.map((pair) => pair.slice('"label":"'.length, -1)) ?? []
  );
}

describe('/settings in the pseudo-locale', () => {
  it('GIVEN /settings show for a server that set everything THEN it fits 2,000 characters and every line before the tag lists is whole and from the catalogue', () => {
    const lines = describeScope(fullRecord(), { kind: 'server' }, sites, say);
    const content = contentOf(textReply(lines.join('\n')));
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    const [site = '', references = '', channels = ''] = lines;
    for (const line of [site, references, channels]) {
      expect(line).toMatch(PSEUDO);
      expect(content).toContain(line);
    }
    expect(content).toMatch(PSEUDO);
  });

  it('GIVEN /settings show channel: for a channel that set everything THEN it fits and every setting line is whole and from the catalogue', () => {
    const lines = describeScope(
      fullRecord(),
      { kind: 'channel', channelId: '200000000000000000' },
      sites,
      say,
    );
    const content = contentOf(textReply(lines.join('\n')));
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    for (const line of lines.slice(0, 5)) {
      expect(line).toMatch(PSEUDO);
      expect(content).toContain(line);
    }
  });

  it('GIVEN /settings reset for a server that set everything THEN the question is whole within 2,000 characters and its button labels within 100', () => {
    const reply = resetQuestion(fullRecord(), say);
    const content = contentOf(reply);
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    expect(content).toMatch(PSEUDO);
    const labels = labelsOf(reply);
    expect(labels).toHaveLength(2);
    for (const label of labels) {
      expect(label).toMatch(PSEUDO);
      expect(label.length).toBeLessThanOrEqual(LABEL_MAX);
    }
    expect(contentOf(resetQuestion({ siteId: undefined, filters: {} }, say))).toMatch(PSEUDO);
  });

  it('GIVEN a tag change that fills both lists, with notes THEN the answer fits 2,000 characters and says what changed and the sizes in full', () => {
    const change = changeLists({ hidden: [], spoilered: [] }, 'hide', longTags(TAG_LIST_MAX, 'new'));
    const text = listsChangeText(change, 'hide', { kind: 'channel', channelId: '1' }, ['note'], say);
    const content = contentOf(textReply(text));
    expect(content.length).toBeLessThanOrEqual(CONTENT_MAX);
    const [done = '', sizes = ''] = text.split('\n');
    expect(done).toMatch(PSEUDO);
    expect(sizes).toMatch(PSEUDO);
    expect(content).toContain(sizes);
  });

  it('GIVEN a check with aliases, unknown names and refused names THEN every note is from the catalogue and the notes fit once cut', () => {
    const names = longTags(30, 'name');
    const check: TagCheck = {
      site: 'A site with a rather long name that goes on and on'.padEnd(60, '!'),
      accepted: [
        {
          name: 'gore',
          via: [
            { given: 'gory', alias: true },
            { given: 'Gore', alias: false },
          ],
        },
      ],
      unknown: names.map((given, i) => ({
        given,
        suggestions: i === 0 ? [] : i < 5 ? names.slice(0, 5) : null,
      })),
      refused: [
        { given: 'x'.repeat(101), reason: 'too-long' },
        { given: 'gore*', reason: 'wildcard' },
        { given: 'artist:', reason: 'namespace-only' },
        { given: 'gore OR blood', reason: 'query-syntax' },
      ],
    };
    const notes = tagCheckNotes(check, say);
    for (const note of notes) expect(note).toMatch(PSEUDO);
    expect(contentOf(textReply(notes.join('\n'))).length).toBeLessThanOrEqual(CONTENT_MAX);
  });

  it('GIVEN the confirmations of /settings references, site and channel reset THEN each is from the catalogue and fits', () => {
    const site = FIRST_SITE;
    const texts = [
      say('settings.references.on'),
      say('settings.references.off'),
      say('settings.site.set', { name: site.name, url: site.baseUrl }),
      say('settings.site.set-with-filter', {
        name: site.name,
        url: site.baseUrl,
        filter: '56027',
      }),
      say('settings.channel.reset', { channel: '<#1>' }),
      say('settings.filter.set', { site: site.name }),
      say('settings.permissions.heading'),
      say('settings.permissions.all-granted'),
      say('settings.permissions.more', { count: 25 }),
    ];
    for (const text of texts) {
      expect(text).toMatch(PSEUDO);
      expect(text.length).toBeLessThanOrEqual(CONTENT_MAX);
    }
    // One channel missing every permission, all named on one line, fits with room for others.
    const needs = ['view-channel', 'send-messages', 'embed-links', 'read-message-history', 'manage-messages'];
    const line = `- <#100000000000000000>: ${needs.map((id) => say(`settings.permissions.need.${id}`)).join('; ')}`;
    expect(line.length).toBeLessThanOrEqual(CONTENT_MAX / 2);
  });
});

/** Every value of `key` anywhere in `tree`. */
function valuesOf(tree: unknown, key: string): string[] {
  if (Array.isArray(tree)) return tree.flatMap((item) => valuesOf(item, key));
  if (tree === null || typeof tree !== 'object') return [];
  return Object.entries(tree).flatMap(([name, value]) =>
    name === key && typeof value === 'string' ? [value] : valuesOf(value, key),
  );
}

describe('/settings panel in the pseudo-locale', () => {
  it.each([
    ['the server', { kind: 'server' } as const],
    ['a channel', { kind: 'channel', channelId: '200000000000000000' } as const],
  ])(
    "GIVEN the panel of %s that set everything THEN its labels, placeholders and options are from the catalogue and within Discord's limits",
    (_name, scope) => {
      const body = panelBody(fullRecord(), scope, { sites, locale: PSEUDO_LOCALE }, 'status', say);
      const components = body.components ?? [];
      const texts = valuesOf(components, 'content');
      expect(texts.join('\n')).toMatch(PSEUDO);
      const labels = valuesOf(components, 'label');
      for (const label of labels) expect(label.length).toBeLessThanOrEqual(OPTION_LABEL_MAX);
      const placeholders = valuesOf(components, 'placeholder');
      expect(placeholders).toHaveLength(3);
      for (const placeholder of placeholders) {
        expect(placeholder).toMatch(PSEUDO);
        expect(placeholder.length).toBeLessThanOrEqual(PLACEHOLDER_MAX);
      }
      // Button labels (the first labels, before the selects' options) are the panel's own words.
      const buttonLabels = labels.filter((label) => /…|: /.test(label) || PSEUDO.test(label));
      expect(buttonLabels.length).toBeGreaterThanOrEqual(5);
      for (const label of buttonLabels) expect(label.length).toBeLessThanOrEqual(LABEL_MAX);
    },
  );

  it.each(['hide', 'spoiler', 'unhide', 'filter'] as const)(
    'GIVEN the %s form THEN its title is within 45 characters and its label and description from the catalogue',
    (kind) => {
      for (const scope of [{ kind: 'server' } as const, { kind: 'channel', channelId: '1' } as const]) {
        const modal = form(scope, kind, 'panel:submit:s:hide', say);
        expect(modal.title).toMatch(PSEUDO);
        expect(modal.title.length).toBeLessThanOrEqual(MODAL_TITLE_MAX);
        const [labels, descriptions] = [
          valuesOf(modal.components, 'label'),
          valuesOf(modal.components, 'description'),
        ];
        for (const text of [...labels, ...descriptions]) expect(text).toMatch(PSEUDO);
        expect(labels.every((label) => label.length <= 45)).toBe(true);
        expect(descriptions.every((text) => text.length <= 100)).toBe(true);
      }
    },
  );
});
