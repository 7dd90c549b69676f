/**
 * `/settings show` says where the bot lacks what it needs, channel by channel, and what each missing
 * permission costs; Manage Messages is spelled out, since without it a board link's own preview shows its
 * picture whatever the rating. Channels are named by mention alone: an admin may not be able
 * to see every channel, and Discord shows a mention's name only to those who can.
 */
import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const show = (harness: Harness) =>
  harness.discord
    .sendCommand({
      name: 'settings',
      subcommand: 'show',
      channel: 'ageRestricted',
      userId: harness.discord.guild.ownerId,
    })
    .finalReply();

/** Until the bot's cache has the overwrite (CHANNEL_UPDATE). */
async function settle(harness: Harness, check: (text: string) => boolean): Promise<string> {
  for (let i = 0; i < 50; i += 1) {
    const reply = await show(harness);
    if (check(reply.content)) return reply.content;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (await show(harness)).content;
}

describe('/settings show: permissions', () => {
  it('GIVEN the bot without Manage Messages and Embed Links in a plain channel THEN that channel is mentioned, without its name, with what each costs', async () => {
    h = await startHarness();
    const harness = h;
    const plain = harness.discord.guild.channels.plain;
    const before = (await show(harness)).content;
    expect(before).not.toContain(`<#${plain}>`);
    harness.discord.denyBot(plain, PermissionFlagsBits.ManageMessages | PermissionFlagsBits.EmbedLinks);
    const text = await settle(harness, (t) => t.includes(`<#${plain}>`));
    expect(text).toContain('Permissions the bot lacks:');
    expect(text).toMatch(
      new RegExp(
        `- <#${plain}>: Embed Links \\(cards arrive empty\\); Manage Messages \\(Discord's own preview of a board link stays, and it shows the picture whatever its rating`,
      ),
    );
    // The channel's name ("general") is not shown.
    expect(text).not.toContain('general');
  });

  it('GIVEN a channel the bot cannot see THEN only View Channel is named for it, by mention alone', async () => {
    h = await startHarness();
    const harness = h;
    const plain = harness.discord.guild.channels.plain;
    harness.discord.denyBot(plain, PermissionFlagsBits.ViewChannel);
    const text = await settle(harness, (t) => t.includes(`<#${plain}>`));
    expect(text).toMatch(new RegExp(`- <#${plain}>: View Channel \\(no cards for links, no feeds\\)$`, 'm'));
    expect(text).not.toContain('general');
  });
});
