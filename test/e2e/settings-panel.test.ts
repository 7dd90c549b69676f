/**
 * `/settings panel` through the local Discord (issue 20 §4): a private Components V2 message whose channel
 * select switches to a channel's panel, whose site select, References and Unfurls toggles, forms (buttons
 * opening modals, submitted as Discord's client would) and preset select each write their change and
 * redraw the panel with a status line; "Reset this channel's own" and "Reset the server…" (the question
 * in a new private message). Every body the local Discord received is valid and pings nobody.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FILTER_IDS } from '../fakes/philomena/index.js';
import type { RecordedMessage } from '../fakes/discord/index.js';
import { componentWithCustomId, isComponentsV2, textOf } from '../fakes/discord/v2.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { ROOMY_BUDGET, startHarness, type Harness } from '../support/harness.js';
import { customIds } from '../support/messages.js';
import { idOn, settings, storedRecord, writeRecord } from '../support/settings.js';

let h: Harness;
let guildId: string;
let siteId: string;
beforeAll(async () => {
  h = await startHarness({ registry: { budget: ROOMY_BUDGET } });
  guildId = h.discord.guild.id;
  siteId = h.config.site.id;
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  await writeRecord(h, guildId, { siteId: undefined, filters: {} });
});

const EPHEMERAL = 1 << 6;

async function openPanel(): Promise<RecordedMessage> {
  const panel = await settings(h, { subcommand: 'panel' });
  expect(panel.flags & EPHEMERAL).toBe(EPHEMERAL);
  expect(isComponentsV2(panel)).toBe(true);
  return panel;
}

/** Presses the form button matching `form`, submits `value`, and returns the panel as redrawn. */
async function submitForm(panel: RecordedMessage, form: RegExp, value: string): Promise<RecordedMessage> {
  const click = h.discord.sendButton({
    message: panel,
    customId: idOn(panel, form),
    userId: h.discord.guild.ownerId,
  });
  expect((await click.acknowledged).type).toBe(9);
  const redrawn = await h.discord.submitModal({ opener: click, values: { value } }).finalReply();
  expect(redrawn.id).toBe(panel.id);
  return redrawn;
}

/** The values the site select of `panel` shows as picked. */
function siteShown(panel: RecordedMessage): unknown[] {
  const select = componentWithCustomId(panel, idOn(panel, /^panel:site:/));
  const options: unknown = select?.['options'];
  if (!Array.isArray(options)) throw new Error('the site select has no options');
  return options.flatMap((option: unknown) =>
    typeof option === 'object' &&
    option !== null &&
    'default' in option &&
    option.default === true &&
    'value' in option
      ? [option.value]
      : [],
  );
}

function press(panel: RecordedMessage, id: RegExp): Promise<RecordedMessage> {
  return h.discord
    .sendButton({ message: panel, customId: idOn(panel, id), userId: h.discord.guild.ownerId })
    .finalReply();
}

function pick(panel: RecordedMessage, id: RegExp, values: string[]): Promise<RecordedMessage> {
  return h.discord
    .sendSelect({ message: panel, customId: idOn(panel, id), values, userId: h.discord.guild.ownerId })
    .finalReply();
}

describe("the server's panel", () => {
  it('GIVEN /settings panel THEN it is private Components V2 showing the server’s settings, and its forms write tags and the filter with a status line', async () => {
    let panel = await openPanel();
    expect(textOf(panel)).toContain("## This server's settings");
    expect(textOf(panel)).toContain('Hidden tags: none.');

    panel = await submitForm(panel, /^panel:form:s:hide$/, 'gore, ai art');
    expect(textOf(panel)).toContain('Hidden in this server: `gore`, `ai generated`.');
    expect(textOf(panel)).toContain('`ai art` is an alias: stored as `ai generated`.');
    expect(textOf(panel)).toContain('Hidden tags (2 of 200): `gore`, `ai generated`');
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual(['gore', 'ai generated']);

    panel = await submitForm(panel, /^panel:form:s:spoiler$/, 'gore, blood');
    expect(textOf(panel)).toContain('Behind a spoiler in this server: `gore`, `blood`.');
    let record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toEqual(['ai generated']);
    expect(record.spoileredTags).toEqual(['gore', 'blood']);

    panel = await submitForm(panel, /^panel:form:s:unhide$/, 'blood, ai generated');
    expect(textOf(panel)).toContain('No longer hidden or spoilered in this server: `ai generated`, `blood`.');
    record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toBeUndefined();
    expect(record.spoileredTags).toEqual(['gore']);

    panel = await submitForm(panel, /^panel:form:s:filter$/, String(FILTER_IDS.default));
    expect(textOf(panel)).toContain('Filter set for');
    expect(textOf(panel)).toContain('Hides 2 tags: explicit, grotesque.');
    expect((await storedRecord(h, guildId)).filters).toEqual({ [siteId]: FILTER_IDS.default });
  });

  it('GIVEN a form with nothing the board knows, or a private filter THEN the member is told privately, nothing is written and the panel stays', async () => {
    const panel = await openPanel();
    for (const [form, value, said] of [
      [/^panel:form:s:hide$/, 'gorgeou', /none of those is a tag/],
      [/^panel:form:s:filter$/, String(FILTER_IDS.otherPrivate), /has no public filter/],
      [/^panel:form:s:filter$/, 'fifty', /A filter id is a whole number/],
    ] as const) {
      const click = h.discord.sendButton({
        message: panel,
        customId: idOn(panel, form),
        userId: h.discord.guild.ownerId,
      });
      await click.acknowledged;
      const submit = h.discord.submitModal({ opener: click, values: { value } });
      const note = await h.discord.waitFor(() => submit.followUps()[0]);
      expect(note.content).toMatch(said);
      expect(note.flags & EPHEMERAL).toBe(EPHEMERAL);
    }
    expect(await storedRecord(h, guildId)).toEqual({ siteId: undefined, filters: {} });
    expect(textOf(h.discord.message(panel.id) ?? panel)).toBe(textOf(panel));
  });

  it('GIVEN the References toggle, the site select and the preset select THEN each is written and the panel redrawn', async () => {
    let panel = await openPanel();
    expect(customIds(panel)).toContain('panel:refs:s:0');
    panel = await press(panel, /^panel:refs:s:0$/);
    expect(textOf(panel)).toContain('Image references off in this server.');
    expect((await storedRecord(h, guildId)).imageReferences).toBe(false);
    panel = await press(panel, /^panel:refs:s:1$/);
    expect(textOf(panel)).toContain('Image references on in this server.');
    expect((await storedRecord(h, guildId)).imageReferences).toBeUndefined();

    panel = await pick(panel, /^panel:preset:s:$/, ['no-gore']);
    expect(textOf(panel)).toContain('Preset **No gore**');
    expect((await storedRecord(h, guildId)).hiddenTags).toEqual([
      'gore',
      'grotesque',
      'guts',
      'dismemberment',
      'decapitation',
    ]);

    expect(siteShown(panel)).toEqual(['default']);
    panel = await pick(panel, /^panel:site:s:$/, ['derpibooru']);
    expect(textOf(panel)).toContain('Changed. Site: **Derpibooru**');
    expect((await storedRecord(h, guildId)).siteId).toBe('derpibooru');
    expect(siteShown(panel)).toEqual(['derpibooru']);
    panel = await pick(panel, /^panel:site:s:$/, ['default']);
    expect((await storedRecord(h, guildId)).siteId).toBeUndefined();
    expect(siteShown(panel)).toEqual(['default']);
  });
});

describe("a channel's panel", () => {
  it('GIVEN the channel select THEN the panel switches to the channel; its toggles, site, forms and preset write the channel’s own; Reset this channel’s own takes them away', async () => {
    const { spoiler } = h.discord.guild.channels;
    let panel = await openPanel();
    panel = await h.discord
      .sendChannelSelect({
        message: panel,
        customId: idOn(panel, /^panel:channel:s:$/),
        values: [spoiler],
        userId: h.discord.guild.ownerId,
      })
      .finalReply();
    expect(textOf(panel)).toContain(`## Settings of <#${spoiler}>`);
    expect(siteShown(panel)).toEqual(['server']);
    const code = `panel:[a-z]+:${spoiler}`;

    panel = await press(panel, new RegExp(`^panel:unfurl:${spoiler}:0$`));
    expect(textOf(panel)).toContain(`Unfurls of links off in <#${spoiler}>.`);
    panel = await press(panel, new RegExp(`^panel:refs:${spoiler}:0$`));
    expect(textOf(panel)).toContain(`Image references off in <#${spoiler}>.`);
    panel = await submitForm(panel, new RegExp(`^panel:form:${spoiler}:spoiler$`), 'gory');
    expect(textOf(panel)).toContain(`Behind a spoiler in <#${spoiler}>: \`gore\`.`);
    panel = await submitForm(panel, new RegExp(`^panel:form:${spoiler}:filter$`), String(FILTER_IDS.public));
    expect(textOf(panel)).toContain(`• Filter: ${FILTER_IDS.public} (this channel's own)`);
    panel = await pick(panel, new RegExp(`^panel:preset:${spoiler}:$`), ['no-ai']);
    expect(textOf(panel)).toContain(`in <#${spoiler}>`);
    expect((await storedRecord(h, guildId)).channels?.[spoiler]).toEqual({
      unfurl: false,
      imageReferences: false,
      spoileredTags: ['gore'],
      hiddenTags: expect.arrayContaining(['ai content', 'ai generated']),
      filters: { [siteId]: FILTER_IDS.public },
    });
    // The server's own stay untouched.
    const record = await storedRecord(h, guildId);
    expect(record.hiddenTags).toBeUndefined();
    expect(record.imageReferences).toBeUndefined();

    panel = await pick(panel, new RegExp(`^panel:site:${spoiler}:$`), ['derpibooru']);
    expect(textOf(panel)).toContain("Changed. Site: **Derpibooru** (this channel's own)");
    expect((await storedRecord(h, guildId)).channels?.[spoiler]?.siteId).toBe('derpibooru');
    expect(siteShown(panel)).toEqual(['derpibooru']);
    // The bot's default site picked for the channel: its own, shown as picked.
    panel = await pick(panel, new RegExp(`^panel:site:${spoiler}:$`), ['default']);
    expect((await storedRecord(h, guildId)).channels?.[spoiler]?.siteId).toBe(siteId);
    expect(textOf(panel)).toContain("(this channel's own)");
    expect(siteShown(panel)).toEqual(['default']);

    panel = await press(panel, new RegExp(`^panel:chreset:${spoiler}:$`));
    expect(textOf(panel)).toContain(`In <#${spoiler}>: back to the server's settings.`);
    expect((await storedRecord(h, guildId)).channels).toBeUndefined();
    expect(customIds(panel).some((id) => new RegExp(code).test(id))).toBe(true);

    panel = await press(panel, /^panel:open:s:$/);
    expect(textOf(panel)).toContain("## This server's settings");
  });

  it('GIVEN Reset the server… THEN the question comes in a new private message, the panel stays, and the press there resets', async () => {
    await settings(h, { subcommand: 'references', options: { enabled: false } });
    const panel = await openPanel();
    const question = await press(panel, /^panel:reset:s:$/);
    expect(question.id).not.toBe(panel.id);
    expect(question.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(question.content).toMatch(/^Reset this server's settings\? This clears references turned off/);
    expect(h.discord.message(panel.id)?.components).toEqual(panel.components);
    expect((await storedRecord(h, guildId)).imageReferences).toBe(false);
    await press(question, /^set:reset-yes$/);
    expect(await storedRecord(h, guildId)).toEqual({ siteId: undefined, filters: {} });
  });

  it('GIVEN a member without Manage Server using the panel THEN every control refuses them and nothing is written', async () => {
    const panel = await openPanel();
    const member = h.discord.guild.memberId;
    const click = h.discord.sendButton({ message: panel, customId: 'panel:refs:s:0', userId: member });
    const note = await h.discord.waitFor(() => click.followUps()[0]);
    expect(note.content).toMatch(/Only members with the Manage Server permission/);
    const preset = h.discord.sendSelect({
      message: panel,
      customId: 'panel:preset:s:',
      values: ['no-ai'],
      userId: member,
    });
    expect((await h.discord.waitFor(() => preset.followUps()[0])).content).toMatch(/Manage Server/);
    const form = h.discord.sendButton({ message: panel, customId: 'panel:form:s:hide', userId: member });
    await form.acknowledged;
    const submitted = h.discord.submitModal({ opener: form, values: { value: 'gore' } });
    expect((await h.discord.waitFor(() => submitted.followUps()[0])).content).toMatch(/Manage Server/);
    expect(await storedRecord(h, guildId)).toEqual({ siteId: undefined, filters: {} });
  });
});

describe('what the local Discord received', () => {
  it('GIVEN every panel above THEN every body was valid and pinged nobody', () => {
    expectNoDiscordProblems(h.discord);
  });
});
