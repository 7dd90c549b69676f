/**
 * Which board client reads what a member asked for (issue 22 §2): where the view says the member's own
 * account decides (`View.ownAccount`: they linked the site and neither the channel nor the server chose a
 * filter), their member client (`registry.memberClient`: their key, their own cache space, the `account`
 * budget class; src/philomena/client/member.ts), with the filter they chose or none (the account's
 * current filter applies); everywhere else the site's shared client, without a key, as before.
 *
 * Only for what the member asked for (commands and their buttons): a server's settings checks, unfurls,
 * feeds and autocomplete never come here. The key is looked up when needed and goes nowhere but the member
 * client: never into the view, the context, a custom id or a log line.
 */
import { UserFacingError } from '../../src/discord/failures.js';
import type { PhilomenaClient } from '../../src/philomena/client/types.js';
import type { Site } from '../../src/philomena/sites.js';
import { escapeMarkdown } from '../../src/render/index.js';
import type { CommandContext } from './context.js';
import type { View } from './view.js';

/** The client to read with, and the view to read under (without the account when the key is gone). */
export interface Board {
  readonly client: PhilomenaClient;
  readonly view: View;
  /** Whether `client` carries the member's own key. */
  readonly member: boolean;
}

type BoardContext = Pick<CommandContext, 'registry' | 'memberKeys' | 'logger' | 'userId'>;

/** The client reading `view` for the member of `context` (see the header). */
export async function boardFor(context: BoardContext, view: View): Promise<Board> {
  const shared = (under: View): Board => ({
    client: context.registry.client(under.site),
    view: under,
    member: false,
  });
  if (!view.ownAccount) return shared(view);
  let key: Awaited<ReturnType<CommandContext['memberKeys']['keyFor']>>;
  try {
    key = await context.memberKeys.keyFor(context.userId, view.site.id);
  } catch (error) {
    // The store is away: the member's request goes on as an unlinked member's would (the default filter).
    context.logger.warn({ err: error }, "the member's key could not be read: their request goes without it");
    return shared(view.withoutAccount());
  }
  // Unlinked between the view and now: as for anyone without a key.
  if (key === undefined) return shared(view.withoutAccount());
  return {
    client: context.registry.memberClient(view.site, { id: context.userId, key: key.reveal() }),
    view,
    member: true,
  };
}

/** Drops the member's key for `site` and every answer fetched with it (the board refused the key). */
export async function dropKey(site: Site, userId: string, context: BoardContext): Promise<void> {
  await context.memberKeys.unlink(userId, site.id);
  context.registry.forgetMember(userId);
  context.logger.info({ userId, siteId: site.id }, "the board refused a member's key: it was unlinked");
}

/** What the member reads, once, when the board refused their key outside a `my:` search (`/me filter`). */
export function accountKeyRefused(site: Site): UserFacingError {
  const name = escapeMarkdown(site.name);
  return new UserFacingError(
    'account.key-refused',
    `${name} no longer accepts your linked key, so the bot deleted it. Link your account again with \`/me link\` to use it here.`,
    { params: { site: name } },
  );
}
