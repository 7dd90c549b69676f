/**
 * Who a board request is for, so the budget can share a site's few slots fairly (budget.ts): by priority
 * class first, then round-robin between servers and, within a server, between members.
 *
 * The context travels with the async call chain (AsyncLocalStorage), so code between the bot's handler and
 * the transport (cache, coalescing, retries) needs no extra parameter. A call can also name its requester
 * in `CallOptions.requester`, which wins. The library never reads Discord itself: the keys are opaque
 * strings the caller chose.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * - `interactive`: a member waits for the answer (a command, a button). Served first.
 * - `account`: a request made with a member's own board key (registry.ts `memberClient`; the client sets
 *   it). A member waits for it too, but it serves one account rather than a server's shared view, so it
 *   goes after every interactive waiter and before unfurls and feeds (what the bot does on its own).
 * - `unfurl`: the bot answers a link in chat on its own; served after every account waiter.
 * - `feed`: a background poll for new uploads; served after every unfurl waiter.
 * - `autocomplete`: suggestions while typing; a small fixed share of the window, never queued (an answer
 *   that comes late is useless, and a burst of keystrokes must not crowd out real commands).
 */
export type RequestPriority = 'interactive' | 'account' | 'unfurl' | 'feed' | 'autocomplete';

export interface RequestContext {
  readonly priority: RequestPriority;
  /** Fairness keys: the server (or 'dm') and the member; both optional. */
  readonly server?: string;
  readonly member?: string;
}

// Made on first use, not at import: no module-level side effects.
let storage: AsyncLocalStorage<RequestContext> | undefined;

/** Runs `fn` (and everything it starts asynchronously) on behalf of `context`. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  storage ??= new AsyncLocalStorage<RequestContext>();
  return storage.run(context, fn);
}

/** The context of the innermost `runWithRequestContext` around the caller; undefined outside any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage?.getStore();
}
