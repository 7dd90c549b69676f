/**
 * Requests made with a member's own board key (issue 22): what makes a member client differ from the
 * site's shared one. registry.ts `memberClient` puts one together; this file holds the rules.
 *
 * - The key goes with every request of the reads whose answer depends on the account (docs/board-behaviour.md,
 *   "The API key": the account's current filter, `my:` terms, its private filters, its filter list) and
 *   with the upload: `MEMBER_KEYED` below. Everything else (a tag by name, comments, profiles, forums,
 *   oEmbed, reverse search, the system filters) answers the same for everyone, so the member client hands
 *   it to the site's shared client: anonymous, shared cache, the caller's own budget class.
 * - Every keyed request is the member's in the site's budget: class `account` (request-context.ts), the
 *   member's fairness key, the server of the caller's context. Autocomplete stays autocomplete (it never
 *   queues; a late suggestion is useless).
 * - A refusal of the key itself (401 or 403 on `filters/user` or on an upload) becomes a
 *   `MemberKeyRefusedError`, so the application can drop the key and tell the member once.
 *
 * The caching rules (the member's own space, short lifetimes, no seeds of the shared image cache) are the
 * registry's: member-caches.ts and `memberLifetimes` here.
 */
import { ForbiddenError, MemberKeyRefusedError } from '../errors.js';
import { currentRequestContext, type RequestContext } from '../request-context.js';
import type { Engine, Lifetimes } from './engine.js';
import type { CallOptions, PhilomenaClient } from './types.js';

/** Whose key a client carries: an opaque id the application chose (the member's), never the key. */
export interface MemberKeyOptions {
  readonly id: string;
}

/** The methods a member client answers with the member's key; the others go to the shared client. */
export const MEMBER_KEYED = [
  'image',
  'featuredImage',
  'searchImages',
  'submitImage',
  'searchTags',
  'searchComments',
  'searchPosts',
  'searchGalleries',
  'filter',
  'userFilters',
  'searchFilters',
] as const satisfies readonly (keyof PhilomenaClient)[];

/** Default cap of a member answer's lifetime: an account's lists and filter change under it. */
export const MEMBER_LIFETIME_MS = 60_000;

/** `lifetimes`, none longer than `capMs`. */
export function memberLifetimes(lifetimes: Lifetimes, capMs: number): Lifetimes {
  const capped = { ...lifetimes };
  const isName = (name: string): name is keyof Lifetimes => name in capped;
  for (const name of Object.keys(capped)) {
    if (isName(name)) capped[name] = Math.min(capped[name], capMs);
  }
  return capped;
}

/** Who a keyed request is for: the member, in the `account` class (autocomplete keeps its own). */
function memberRequester(member: string, given: RequestContext | undefined): RequestContext {
  const priority = given?.priority === 'autocomplete' ? 'autocomplete' : 'account';
  return { priority, member, ...(given?.server === undefined ? {} : { server: given.server }) };
}

function asMember(member: MemberKeyOptions, callOptions: CallOptions = {}): CallOptions {
  return {
    ...callOptions,
    requester: memberRequester(member.id, callOptions.requester ?? currentRequestContext()),
  };
}

/**
 * The engine of a member client: every call it makes carries the key (the engine's cache key then holds
 * a short hash of it, never the key), and every request is the member's. Only `MEMBER_KEYED` methods of a
 * member client are ever used, so nothing else reaches it.
 */
export function memberEngine(engine: Engine, member: MemberKeyOptions): Engine {
  return {
    ...engine,
    call: (endpoint, callOptions) => engine.call({ ...endpoint, auth: true }, asMember(member, callOptions)),
    send: (request, callOptions) => engine.send(request, asMember(member, callOptions)),
  };
}

/** A refusal of the key itself, as the application needs to see it; any other error unchanged. */
function keyRefusal(error: unknown, refusedOn: 'filters' | 'upload'): unknown {
  if (!(error instanceof ForbiddenError) || error instanceof MemberKeyRefusedError) return error;
  if (error.status !== 401 && error.status !== 403) return error;
  return new MemberKeyRefusedError(error.message, refusedOn, {
    site: error.site,
    status: error.status,
    ...(error.path === undefined ? {} : { path: error.path }),
  });
}

/** The member client: `MEMBER_KEYED` from `own` (made with the member's key), the rest from `shared`. */
export function composeMemberClient(own: PhilomenaClient, shared: PhilomenaClient): PhilomenaClient {
  return {
    site: own.site,
    image: own.image,
    featuredImage: own.featuredImage,
    searchImages: own.searchImages,
    async submitImage(input, callOptions) {
      try {
        return await own.submitImage(input, callOptions);
      } catch (error) {
        throw keyRefusal(error, 'upload');
      }
    },
    searchTags: own.searchTags,
    searchComments: own.searchComments,
    searchPosts: own.searchPosts,
    searchGalleries: own.searchGalleries,
    filter: own.filter,
    async userFilters(callOptions) {
      try {
        return await own.userFilters(callOptions);
      } catch (error) {
        throw keyRefusal(error, 'filters');
      }
    },
    searchFilters: own.searchFilters,
    reverseSearch: shared.reverseSearch,
    oembed: shared.oembed,
    tag: shared.tag,
    comment: shared.comment,
    post: shared.post,
    profile: shared.profile,
    systemFilters: shared.systemFilters,
    forums: shared.forums,
    forum: shared.forum,
    topics: shared.topics,
    topic: shared.topic,
    topicPosts: shared.topicPosts,
    topicPost: shared.topicPost,
  };
}
