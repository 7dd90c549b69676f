import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { FAKE_KEY, FILTER_IDS, IDS } from '../fakes/philomena/index.js';
import type { InteractionHandle, RecordedMessage } from '../fakes/discord/index.js';
import { expectNoDiscordProblems } from '../support/checks.js';
import { customIds, footerText } from '../support/messages.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  // The owner's own filter, made public (the bot looks filters up without the key): it spoilers the
  // spoiler-tagged image the Reveal test needs.
  h = await startHarness({ env: { BOORU_FILTER_ID: String(FILTER_IDS.ownerPublic) } });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.booru.clearFaults();
  expectNoDiscordProblems(h.discord);
});

/** The ephemeral error a member got: a follow-up after a public "thinking…" was removed. */
async function errorFollowUp(handle: InteractionHandle): Promise<RecordedMessage> {
  await handle.acknowledged;
  const followUp = await h.discord.waitFor(() => handle.followUps()[0], 15_000);
  expect(followUp.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
  return followUp;
}

async function imageFullUrl(id: number): Promise<string> {
  const image = await h.registry.client(h.config.site).image(id);
  if (image.kind !== 'image') throw new Error('expected a visible image');
  return image.representations.full;
}

describe('/image', () => {
  it('GIVEN an id THEN the card links to the image page', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.safe) }, channel: 'plain' })
      .finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN a link to the image THEN the same card comes back', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: `${h.booru.url}/images/${IDS.safe}` }, channel: 'plain' })
      .finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN a merged image THEN the target is shown and the merge is said', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.merged) }, channel: 'plain' })
      .finalReply();
    expect(reply.content).toMatch(new RegExp(`Image ${IDS.merged} was merged into image \\d+`));
  });

  it('GIVEN a merge loop THEN the bot answers without spinning', async () => {
    const slash = h.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.mergeLoopA) },
      channel: 'plain',
    });
    const reply = await slash.finalReply();
    expect(reply).toBeDefined();
  });

  it('GIVEN junk THEN a short ephemeral explanation', async () => {
    const slash = h.discord.sendCommand({ name: 'image', options: { id: 'not an image' }, channel: 'plain' });
    expect((await errorFollowUp(slash)).content).toMatch(/Give an image id/);
  });

  it('GIVEN an unknown id THEN "not found", ephemerally', async () => {
    const slash = h.discord.sendCommand({ name: 'image', options: { id: '99999999' }, channel: 'plain' });
    expect((await errorFollowUp(slash)).content).toMatch(/Not found/);
  });

  it('GIVEN a spoilered image THEN a Reveal button answers the clicker ephemerally', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.spoilerTagged) }, channel: 'plain' })
      .finalReply();
    const reveal = customIds(reply).find((id) => id.startsWith('img:reveal:'));
    expect(reveal).toBeDefined();
    const click = h.discord.sendButton({ customId: reveal!, message: reply });
    const revealed = await click.finalReply();
    expect(revealed.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(customIds(revealed).some((id) => id.startsWith('img:reveal:'))).toBe(false);
  });

  it('GIVEN the board is down THEN the member is told, not left waiting', async () => {
    h.booru.inject({ fault: { kind: 'status', status: 503 }, path: `/api/v1/json/images/${IDS.grimdark}` });
    const slash = h.discord.sendCommand({
      name: 'image',
      options: { id: String(IDS.grimdark) },
      channel: 'plain',
    });
    expect((await errorFollowUp(slash)).content).toMatch(/busy|down/);
  });
});

describe('/featured and /tag', () => {
  it('GIVEN /featured THEN the featured image card', async () => {
    const reply = await h.discord.sendCommand({ name: 'featured', channel: 'plain' }).finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.featured}`);
  });

  it('GIVEN an alias THEN the tag card shows its target and says so', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'tag', options: { name: 'littlepip' }, channel: 'plain' })
      .finalReply();
    const text = JSON.stringify(reply.embeds);
    expect(text).toContain('oc:littlepip');
    expect(text).toMatch(/alias/i);
  });

  it('GIVEN a tag name being typed THEN autocomplete suggests tags', async () => {
    const choices = await h.discord
      .sendAutocomplete({ name: 'tag', options: { name: 'twi' }, focused: 'name', channel: 'plain' })
      .autocompleteChoices();
    expect(choices.length).toBeGreaterThan(0);
    expect(choices.length).toBeLessThanOrEqual(25);
    expect(choices.map((c) => c.value)).toContain('twilight sparkle');
  });
});

describe('/search', () => {
  it('GIVEN a query THEN one image per page with working Next and Previous', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    expect(footerText(first)).toMatch(/1 of \d+/);
    const next = customIds(first).find((id) => id.startsWith('srch:next:'))!;
    const second = await h.discord.sendButton({ customId: next, message: first }).finalReply();
    expect(footerText(second)).toMatch(/2 of \d+/);
    const prev = customIds(second).find((id) => id.startsWith('srch:prev:'))!;
    const back = await h.discord.sendButton({ customId: prev, message: second }).finalReply();
    expect(footerText(back)).toMatch(/1 of \d+/);
    expect(JSON.stringify(back.embeds[0])).toBe(JSON.stringify(first.embeds[0]));
  });

  it('GIVEN random sort THEN paging back returns the same image (the seed is kept)', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony', sort: 'random' }, channel: 'plain' })
      .finalReply();
    const next = customIds(first).find((id) => id.startsWith('srch:next:'))!;
    const second = await h.discord.sendButton({ customId: next, message: first }).finalReply();
    const prev = customIds(second).find((id) => id.startsWith('srch:prev:'))!;
    const back = await h.discord.sendButton({ customId: prev, message: second }).finalReply();
    expect(JSON.stringify(back.embeds[0]?.['url'])).toBe(JSON.stringify(first.embeds[0]?.['url']));
  });

  it('GIVEN another member clicks THEN only they get a polite refusal and the message stays', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    const next = customIds(first).find((id) => id.startsWith('srch:next:'))!;
    const click = h.discord.sendButton({
      customId: next,
      message: first,
      userId: h.discord.guild.otherMemberId,
    });
    const refusal = await click.finalReply();
    expect(refusal.content).toMatch(/Only the person who searched/);
    expect(refusal.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(footerText(h.discord.message(first.id)!)).toMatch(/1 of/);
  });

  it('GIVEN a button whose state is gone THEN "expired" and the buttons are removed', async () => {
    const first = await h.discord
      .sendCommand({ name: 'search', options: { query: 'pony' }, channel: 'plain' })
      .finalReply();
    const next = customIds(first).find((id) => id.startsWith('srch:next:'))!;
    // As after a restart with a memory store, or past the lifetime: the query is no longer stored.
    expect(await h.store.delete(`state:search:${next.split(':')[3]}`)).toBe(true);
    const click = h.discord.sendButton({ customId: next, message: first });
    expect((await errorFollowUp(click)).content).toMatch(/expired/);
    expect(h.discord.message(first.id)!.components).toEqual([]);
  });

  it('GIVEN private: true THEN the results are ephemeral and "Post publicly" posts the card', async () => {
    const slash = h.discord.sendCommand({
      name: 'search',
      options: { query: 'pony', private: true },
      channel: 'plain',
    });
    const first = await slash.finalReply();
    expect(first.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    const pub = customIds(first).find((id) => id.startsWith('srch:pub:'))!;
    const posted = await h.discord.sendButton({ customId: pub, message: first }).finalReply();
    expect(posted.flags & MessageFlags.Ephemeral).toBe(0);
    expect(posted.embeds[0]?.['url']).toBe(first.embeds[0]?.['url']);
    expect(posted.components).toEqual([]);
  });

  it('GIVEN no results THEN the member is told why', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'search', options: { query: 'no such tag at all' }, channel: 'plain' })
      .finalReply();
    expect(reply.content).toMatch(/No images matched/);
  });

  it('GIVEN a query the board rejects THEN its message, escaped', async () => {
    const slash = h.discord.sendCommand({
      name: 'search',
      options: { query: 'pony))' },
      channel: 'ageRestricted',
    });
    expect((await errorFollowUp(slash)).content).toMatch(/did not understand/);
  });

  it('GIVEN the last term being typed THEN suggestions replace only that term', async () => {
    const choices = await h.discord
      .sendAutocomplete({
        name: 'search',
        options: { query: 'pony, twi' },
        focused: 'query',
        channel: 'plain',
      })
      .autocompleteChoices();
    expect(choices.map((c) => c.value)).toContain('pony, twilight sparkle');
    for (const choice of choices) expect(String(choice.value).startsWith('pony, ')).toBe(true);
  });

  it('GIVEN a board slower than the autocomplete window THEN no choices, answered in time', async () => {
    h.booru.inject({ fault: { kind: 'latency', ms: 4000 }, path: '/api/v1/json/search/tags' });
    const auto = h.discord.sendAutocomplete({
      name: 'search',
      options: { query: 'slowterm' },
      focused: 'query',
      channel: 'plain',
    });
    const ack = await auto.acknowledged;
    expect(ack.ms).toBeLessThan(3000);
    expect(await auto.autocompleteChoices()).toEqual([]);
  });
});

describe('/reverse and Find source', () => {
  it('GIVEN the URL of an image file THEN the matching image card', async () => {
    const url = await imageFullUrl(IDS.safe);
    const reply = await h.discord
      .sendCommand({ name: 'reverse', options: { url }, channel: 'plain' })
      .finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN an attached file THEN the bot downloads it and finds the image', async () => {
    const url = await imageFullUrl(IDS.safe);
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
    const reply = await h.discord
      .sendCommand({
        name: 'reverse',
        channel: 'plain',
        attachments: [{ option: 'file', filename: 'pic.png', contentType: 'image/png', data: bytes }],
      })
      .finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN neither url nor file THEN a short explanation', async () => {
    const slash = h.discord.sendCommand({ name: 'reverse', channel: 'plain' });
    expect((await errorFollowUp(slash)).content).toMatch(/either a url or a file/);
  });

  it('GIVEN a message with an image attachment THEN Find source answers with the match', async () => {
    // On Discord's side (the local Discord's origin): the bot downloads attachments from nowhere else.
    const bytes = Buffer.from(await (await fetch(await imageFullUrl(IDS.safe))).arrayBuffer());
    const url = h.discord.cdnFile('pic.png', bytes);
    const reply = await h.discord
      .sendMessageCommand({
        name: 'Find source',
        channel: 'plain',
        targetMessage: {
          content: 'where is this from?',
          attachments: [
            { id: '1', filename: 'pic.png', url, proxy_url: url, size: 100, content_type: 'image/png' },
          ],
        },
      })
      .finalReply();
    expect(JSON.stringify(reply.embeds)).toContain(`/images/${IDS.safe}`);
  });

  it('GIVEN a message without a picture THEN Find source says so', async () => {
    const reply = await h.discord
      .sendMessageCommand({ name: 'Find source', channel: 'plain', targetMessage: { content: 'just text' } })
      .finalReply();
    expect(reply.content).toMatch(/no picture/);
  });
});

describe('secrets and mentions', () => {
  it('GIVEN everything so far THEN the board key never reached Discord or the logs', () => {
    const sent = JSON.stringify(h.discord.requests.map((r) => [r.path, r.query, r.body]));
    expect(sent).not.toContain(FAKE_KEY);
    expect(h.logText()).not.toContain(FAKE_KEY);
    expect(h.logText()).not.toContain(h.discord.token);
  });

  it('GIVEN an image whose text holds @everyone THEN the card pings nobody', async () => {
    const reply = await h.discord
      .sendCommand({ name: 'image', options: { id: String(IDS.hostileText) }, channel: 'ageRestricted' })
      .finalReply();
    expect(reply.allowedMentions).toEqual({ parse: [] });
    expect(h.discord.mentionRisks).toEqual([]);
  });
});
