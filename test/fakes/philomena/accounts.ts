/**
 * The board's accounts: who a `key` belongs to, and what that account owns (its filters, its current
 * filter, the lists `my:` reads, whether it is banned). The operator's account (OWNER, FAKE_KEY) is one
 * of them from the start; a test adds more with `booru.addAccount` and takes a key away with
 * `booru.revokeKey`, after which the board treats that key as a wrong one (docs/board-behaviour.md "The API
 * key": no error, the request runs anonymously; 403 on `/filters/user`, 401 on an upload).
 *
 * Accounts live in the data set, so `booru.reset()` takes the added ones away again.
 */
import { randomBytes } from 'node:crypto';
import type { Board } from './board-context.js';
import { FAKE_KEY, OWNER } from './data.js';
import type { FilterRecord, ImageRecord, UserRecord } from './data.js';
import type { Predicate } from './query.js';

/** What `my:` reads of the key's account (`listsOf` builds it). */
export interface AccountLists {
  readonly id: number;
  readonly name: string;
  readonly faves: ReadonlySet<number>;
  readonly upvotes: ReadonlySet<number>;
  readonly downvotes: ReadonlySet<number>;
  readonly hidden: ReadonlySet<number>;
  /** Uploads, anonymous ones included (the board's `true_uploader_id`). */
  readonly uploads: ReadonlySet<number>;
  /** Canonical tag names. */
  readonly watchedTags: ReadonlySet<string>;
}

/** One of an account's own filters (its id comes back from `addAccount`). Tags are names. */
export interface NewFilter {
  readonly name: string;
  readonly description?: string;
  readonly public?: boolean;
  readonly hiddenTags?: readonly string[];
  readonly spoileredTags?: readonly string[];
  readonly hiddenComplex?: string;
  readonly spoileredComplex?: string;
}

/** Lists and state a test may give an account, then change with `booru.updateAccount`. */
export interface AccountState {
  /**
   * The filter the board applies to the account's requests: any filter id it may use, or `{ own: i }`
   * for the i-th of its own filters. Default: the site's Default filter.
   */
  readonly currentFilterId?: number | { readonly own: number };
  /** Image ids. Faves and upvotes also count on the image (`faves`, `faved_by:` ...). */
  readonly faves?: readonly number[];
  readonly upvotes?: readonly number[];
  readonly downvotes?: readonly number[];
  readonly hidden?: readonly number[];
  /** Image ids the account uploaded: they take its name as uploader. */
  readonly uploads?: readonly number[];
  /** Tag names (aliases resolve): `my:watched` finds images carrying any of them. */
  readonly watchedTags?: readonly string[];
  /** A banned account may search, but an upload answers 403. */
  readonly banned?: boolean;
}

export interface NewAccount extends AccountState {
  /** The account's name (unique on the board, case-insensitively). */
  readonly name: string;
  readonly filters?: readonly NewFilter[];
  /** Images per page of its searches; the board's default is 15. */
  readonly imagesPerPage?: number;
}

export interface CreatedAccount {
  readonly id: number;
  /** Like a real key: 20 characters of [A-Za-z0-9_-]. */
  readonly key: string;
  /** The ids of `filters`, in the order given. */
  readonly filterIds: readonly number[];
}

export interface AccountRecord {
  readonly user: UserRecord;
  readonly lists: {
    faves: Set<number>;
    upvotes: Set<number>;
    downvotes: Set<number>;
    hidden: Set<number>;
    uploads: Set<number>;
    watchedTags: Set<string>;
  };
  banned: boolean;
}

/** The accounts of one data set, and which key opens which. */
export interface AccountBook {
  readonly byId: Map<number, AccountRecord>;
  readonly byKey: Map<string, number>;
}

/** A fresh book: only the operator's account, opened by FAKE_KEY (its lists stay in the images). */
export function createAccountBook(users: readonly UserRecord[]): AccountBook {
  const owner = users.find((u) => u.id === OWNER.id);
  if (owner === undefined) throw new Error('fake philomena: the data set has no owner account');
  return {
    byId: new Map([[owner.id, { user: owner, lists: emptyLists(), banned: false }]]),
    byKey: new Map([[FAKE_KEY, owner.id]]),
  };
}

const emptyLists = (): AccountRecord['lists'] => ({
  faves: new Set(),
  upvotes: new Set(),
  downvotes: new Set(),
  hidden: new Set(),
  uploads: new Set(),
  watchedTags: new Set(),
});

/** The account a request's key opens, if any. */
export function accountOfKey(board: Board, key: string | null): AccountRecord | undefined {
  if (key === null) return undefined;
  const id = board.accounts.byKey.get(key);
  return id === undefined ? undefined : board.accounts.byId.get(id);
}

/** What `my:` reads for an account (query.ts stays free of the data set). */
export function listsOf(account: AccountRecord): AccountLists {
  return { id: account.user.id, name: account.user.name, ...account.lists };
}

/** `my:` over images for a signed-in caller; undefined for a value the board does not know (a 400). */
export function myImages(what: string, user: AccountLists): Predicate<ImageRecord> | undefined {
  // The operator's lists of the fixed data set are kept on the images by name; added accounts keep
  // theirs by id, and their faves and votes are on the images too.
  const same = (name: string | null): boolean =>
    name !== null && name.toLowerCase() === user.name.toLowerCase();
  switch (what) {
    case 'faves':
      return (image) => user.faves.has(image.id) || image.favedBy.some(same);
    case 'upvotes':
      return (image) => user.upvotes.has(image.id) || image.upvotedBy.some(same);
    case 'downvotes':
      return (image) => user.downvotes.has(image.id);
    case 'hidden':
      return (image) => user.hidden.has(image.id);
    case 'uploads':
      return (image) => user.uploads.has(image.id) || image.uploaderId === user.id || same(image.uploader);
    case 'watched':
      return (image) => image.tags.some((t) => user.watchedTags.has(t));
    default:
      return undefined;
  }
}

/** Philomena's keys are 15 random bytes, URL-safe base64: 20 characters. */
const newKey = (): string => randomBytes(15).toString('base64url');

const nextId = (ids: Iterable<number>): number => Math.max(0, ...ids) + 1;

function imageOf(board: Board, id: number): ImageRecord {
  const image = board.data.images.get(id);
  if (image === undefined) throw new Error(`fake philomena: no image ${id}`);
  return image;
}

function tagIdOf(board: Board, name: string): number {
  const canonical = canonicalTag(board, name);
  const id = board.tagIndex.idsByName.get(canonical);
  if (id === undefined) throw new Error(`fake philomena: no tag ${JSON.stringify(name)}`);
  return id;
}

function canonicalTag(board: Board, name: string): string {
  const lower = name.trim().toLowerCase();
  return board.tagIndex.byName.get(lower)?.aliasOf ?? lower;
}

function buildFilter(board: Board, id: number, userId: number, spec: NewFilter): FilterRecord {
  return {
    id,
    name: spec.name,
    description: spec.description ?? '',
    userId,
    userCount: 1,
    system: false,
    public: spec.public ?? false,
    hiddenTagIds: (spec.hiddenTags ?? []).map((t) => tagIdOf(board, t)),
    spoileredTagIds: (spec.spoileredTags ?? []).map((t) => tagIdOf(board, t)),
    hiddenComplex: spec.hiddenComplex ?? null,
    spoileredComplex: spec.spoileredComplex ?? null,
  };
}

/** Applies lists and state; faves, votes and uploads show on the images as they would on the board. */
function applyState(
  board: Board,
  account: AccountRecord,
  ownFilters: readonly number[],
  state: AccountState,
): void {
  const { user, lists } = account;
  if (state.currentFilterId !== undefined) {
    const wanted = state.currentFilterId;
    const id = typeof wanted === 'number' ? wanted : ownFilters[wanted.own];
    const filter = board.data.filters.find((f) => f.id === id);
    if (filter === undefined || !(filter.system || filter.public || filter.userId === user.id)) {
      throw new Error(`fake philomena: ${user.name} may not use filter ${JSON.stringify(wanted)}`);
    }
    user.currentFilterId = filter.id;
  }
  for (const id of state.faves ?? []) {
    const image = imageOf(board, id);
    if (lists.faves.has(id)) continue;
    lists.faves.add(id);
    image.faves += 1;
    image.favedBy.push(user.name);
  }
  for (const id of state.upvotes ?? []) {
    const image = imageOf(board, id);
    if (lists.upvotes.has(id)) continue;
    lists.upvotes.add(id);
    image.upvotes += 1;
    image.upvotedBy.push(user.name);
  }
  for (const id of state.downvotes ?? []) {
    const image = imageOf(board, id);
    if (lists.downvotes.has(id)) continue;
    lists.downvotes.add(id);
    image.downvotes += 1;
  }
  for (const id of state.hidden ?? []) lists.hidden.add(imageOf(board, id).id);
  for (const id of state.uploads ?? []) {
    const image = imageOf(board, id);
    lists.uploads.add(id);
    image.uploader = user.name;
    image.uploaderId = user.id;
  }
  if (state.watchedTags !== undefined) {
    lists.watchedTags.clear();
    for (const tag of state.watchedTags) {
      tagIdOf(board, tag);
      lists.watchedTags.add(canonicalTag(board, tag));
    }
  }
  if (state.banned !== undefined) account.banned = state.banned;
}

/** `booru.addAccount`. */
export function addAccount(board: Board, spec: NewAccount): CreatedAccount {
  const name = spec.name.trim();
  if (name === '' || board.data.users.some((u) => u.name.toLowerCase() === name.toLowerCase())) {
    throw new Error(`fake philomena: an account needs a new name, got ${JSON.stringify(spec.name)}`);
  }
  const id = nextId([...board.data.users.map((u) => u.id), 10_000]);
  const user: UserRecord = {
    id,
    name,
    slug: name.replaceAll(' ', '+'),
    role: 'user',
    description: null,
    avatarUrl: null,
    createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    commentsCount: 0,
    uploadsCount: spec.uploads?.length ?? 0,
    postsCount: 0,
    topicsCount: 0,
    links: [],
    awards: [],
    currentFilterId: board.data.filters.find((f) => f.system && f.name === 'Default')?.id ?? 0,
    imagesPerPage: spec.imagesPerPage ?? 15,
  };
  const filterIds: number[] = [];
  for (const filter of spec.filters ?? []) {
    const filterId = nextId(board.data.filters.map((f) => f.id));
    board.data.filters.push(buildFilter(board, filterId, id, filter));
    filterIds.push(filterId);
  }
  const account: AccountRecord = { user, lists: emptyLists(), banned: false };
  board.data.users.push(user);
  board.accounts.byId.set(id, account);
  applyState(board, account, filterIds, spec);
  const key = newKey();
  board.accounts.byKey.set(key, id);
  return { id, key, filterIds };
}

function accountByKey(board: Board, key: string): AccountRecord {
  const account = accountOfKey(board, key);
  if (account === undefined) throw new Error('fake philomena: no account has that key');
  return account;
}

/** `booru.updateAccount`: lists are added to, `watchedTags` replaced, the rest set. */
export function updateAccount(board: Board, key: string, patch: AccountState): void {
  const account = accountByKey(board, key);
  const own = board.data.filters.filter((f) => f.userId === account.user.id).map((f) => f.id);
  applyState(board, account, own, patch);
}

/** `booru.revokeKey`: the key opens nothing any more (the account and its lists stay). */
export function revokeKey(board: Board, key: string): void {
  accountByKey(board, key);
  board.accounts.byKey.delete(key);
}

/** `booru.rotateKey`: the account gets a new key, as when its owner resets it; the old one stops working. */
export function rotateKey(board: Board, key: string): string {
  const account = accountByKey(board, key);
  board.accounts.byKey.delete(key);
  const next = newKey();
  board.accounts.byKey.set(next, account.user.id);
  return next;
}
