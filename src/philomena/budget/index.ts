/**
 * The per-site request budget (budget.ts): its windows (windows.ts), its fair queue by class, server and
 * member (fair-queue.ts) and the slots shared with the program's other processes (shared.ts).
 */
export { createRequestBudget } from './budget.js';
export { QUEUED_PRIORITIES } from './fair-queue.js';
export { SHARED_FALLBACK_SHARE } from './shared.js';
export {
  DEFAULT_AUTOCOMPLETE_LIMIT,
  DEFAULT_AUTOCOMPLETE_SEARCH_LIMIT,
  DEFAULT_OVERALL,
  DEFAULT_SEARCH,
} from './types.js';
export type { AcquireOptions, BudgetOptions, BudgetSlot, BudgetStats, RequestBudget } from './types.js';
export { isSearchPath } from './windows.js';
export type { WindowSpec } from './windows.js';
