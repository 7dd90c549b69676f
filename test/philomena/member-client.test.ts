/**
 * Requests made with a member's own key (issue 22 §1, §3; src/philomena/client/member.ts, registry.ts
 * `memberClient`), against the local board with real accounts: whose key goes where, whose answers are
 * cached where, what a refused key becomes, and that an upload is sent once.
 */
import { Writable } from 'node:stream';
import Keyv from 'keyv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFakeBoard } from '../support/board.js';
import {
  FAKE_KEY,
  IDS,
  startFakePhilomena,
  type CreatedAccount,
  type FakePhilomena,
} from '../fakes/philomena/index.js';
import { createClientRegistry, type ClientRegistry } from '../../src/philomena/registry.js';
import {
  ForbiddenError,
  MemberKeyRefusedError,
  RateLimitedError,
  SiteUnavailableError,
} from '../../src/philomena/errors.js';
import { MEMBER_KEYED } from '../../src/philomena/client/member.js';
import { runWithRequestContext } from '../../src/philomena/request-context.js';
import type { BudgetWaitEvent, PhilomenaObserver } from '../../src/philomena/client/types.js';
import { resolveSite, type Site } from '../../src/philomena/sites.js';

let booru: FakePhilomena;
let site: Site;
useFakeBoard((started, startedSite) => {
  booru = started;
  site = startedSite;
});

/** A second board, for "the key goes to its own site only". */
let other: FakePhilomena;
let otherSite: Site;
beforeAll(async () => {
  other = await startFakePhilomena();
  otherSite = resolveSite(other.url);
});
afterAll(async () => {
  await other.close();
});

const SEARCH = '/api/v1/json/search/images';

interface Setup {
  readonly registry: ClientRegistry;
  /** The shared store under the shared cache (keyv over a Map). */
  readonly store: Map<string, unknown>;
  readonly lines: string[];
  readonly waits: BudgetWaitEvent[];
  readonly events: unknown[];
}

function setup(): Setup {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const waits: BudgetWaitEvent[] = [];
  const events: unknown[] = [];
  const observer: PhilomenaObserver = {
    boardCall: (event) => events.push(event),
    cacheLookup: (event) => events.push(event),
    budgetWait: (event) => {
      waits.push(event);
      events.push(event);
    },
  };
  const store = new Map<string, unknown>();
  const registry = createClientRegistry({
    defaultSite: site,
    apiKey: FAKE_KEY,
    cache: new Keyv({ store }),
    // A plain pino logger: whatever the library logs reaches it unredacted by the application.
    logger: pino({ level: 'debug' }, destination),
    observer,
    sleep: async () => undefined,
  });
  return { registry, store, lines, waits, events };
}

function accounts(): { alice: CreatedAccount; bob: CreatedAccount } {
  return {
    alice: booru.addAccount({ name: 'Alice', faves: [IDS.safe] }),
    bob: booru.addAccount({ name: 'Bob', faves: [IDS.suggestive] }),
  };
}

const since = (board: FakePhilomena, mark: number) => board.requests.slice(mark);

describe('member clients: whose key goes where', () => {
  it('GIVEN two members interleaved and concurrent THEN each request carries its own member key only, and each sees their own lists', async () => {
    const { registry } = setup();
    const { alice, bob } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    const b = registry.memberClient(site, { id: 'bob', key: bob.key });
    const [aFaves, bFaves] = await Promise.all([
      a.searchImages({ q: 'my:faves' }),
      b.searchImages({ q: 'my:faves' }),
      a.image(IDS.safe),
      b.image(IDS.safe),
      a.userFilters(),
      b.userFilters(),
      a.featuredImage(),
      b.searchTags({ q: 'pony' }),
      a.filter(100073),
    ]);
    expect(aFaves.items.map((i) => i.id)).toEqual([IDS.safe]);
    expect(bFaves.items.map((i) => i.id)).toEqual([IDS.suggestive]);
    const seen = booru.requests.map((r) => r.key);
    expect(seen.filter((k) => k === alice.key)).toHaveLength(5);
    expect(seen.filter((k) => k === bob.key)).toHaveLength(4);
    expect(seen).not.toContain(FAKE_KEY);
    expect(seen).not.toContain(undefined);
  });

  it('GIVEN a member client THEN reads that answer the same for everyone go anonymously through the shared client', async () => {
    const { registry } = setup();
    const { alice } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    await a.tag('pony');
    await a.systemFilters();
    await a.profile(9001);
    expect(booru.requests.map((r) => r.key)).toEqual([undefined, undefined, undefined]);
    // ...and share its cache: the shared client asks nothing again.
    const mark = booru.requests.length;
    await registry.client(site).tag('pony');
    expect(since(booru, mark)).toHaveLength(0);
  });

  it("GIVEN a member client THEN exactly the MEMBER_KEYED methods are its own; every other is the shared client's", () => {
    const { registry } = setup();
    const shared = registry.client(site);
    const member = registry.memberClient(site, { id: 'alice', key: 'abcdefghij0123456789' });
    const keyed: readonly string[] = MEMBER_KEYED;
    for (const [name, method] of Object.entries(member)) {
      if (name === 'site') continue;
      const sharedMethod: unknown = Reflect.get(shared, name);
      if (keyed.includes(name)) expect(method, name).not.toBe(sharedMethod);
      else expect(method, name).toBe(sharedMethod);
    }
  });

  it('GIVEN a member client of one site THEN its key never reaches the other site, and the other site never gets the operator key either', async () => {
    const { registry } = setup();
    const { alice } = accounts();
    const aliceThere = other.addAccount({ name: 'Alice', faves: [IDS.safe] });
    const here = registry.memberClient(site, { id: 'alice', key: alice.key });
    const there = registry.memberClient(otherSite, { id: 'alice', key: aliceThere.key });
    const otherMark = other.requests.length;
    await Promise.all([
      here.searchImages({ q: 'my:faves' }),
      there.searchImages({ q: 'my:faves' }),
      here.image(IDS.safe),
      there.image(IDS.safe),
      registry.client(otherSite).image(IDS.suggestive),
    ]);
    expect(new Set(booru.requests.map((r) => r.key))).toEqual(new Set([alice.key]));
    expect(new Set(since(other, otherMark).map((r) => r.key))).toEqual(new Set([aliceThere.key, undefined]));
    for (const r of [...booru.requests, ...since(other, otherMark)]) {
      const raw = `${r.path}?${r.query.toString()} ${r.body.toString()} ${JSON.stringify(r.headers)}`;
      expect(raw).not.toContain(FAKE_KEY);
    }
    expect(since(other, otherMark).some((r) => r.key === alice.key)).toBe(false);
  });
});

describe('member clients: their own cache space', () => {
  it('GIVEN identical searches THEN two members make two upstream calls, and one member twice (concurrent, then again) makes one', async () => {
    const { registry } = setup();
    const { alice, bob } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    const b = registry.memberClient(site, { id: 'bob', key: bob.key });
    await Promise.all([
      a.searchImages({ q: 'safe' }),
      a.searchImages({ q: 'safe' }),
      b.searchImages({ q: 'safe' }),
    ]);
    await registry.memberClient(site, { id: 'alice', key: alice.key }).searchImages({ q: 'safe' });
    const searches = booru.requests.filter((r) => r.path === SEARCH);
    expect(searches.map((r) => r.key).sort()).toEqual([alice.key, bob.key].sort());
  });

  it("GIVEN a member's cached answers THEN the shared client and store never get them, nor does a shared request coalesce with a member's", async () => {
    const { registry, store } = setup();
    const { alice } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    const shared = registry.client(site);
    await a.searchImages({ q: 'my:faves' });
    await a.image(IDS.safe);
    expect([...store.keys()]).toEqual([]);
    const mark = booru.requests.length;
    const [sharedFaves] = await Promise.all([
      shared.searchImages({ q: 'my:faves' }),
      shared.image(IDS.safe),
      a.searchImages({ q: 'pony' }),
      shared.searchImages({ q: 'pony' }),
    ]);
    // Anonymous, `my:faves` is a plain unknown tag: nothing of Alice's list.
    expect(sharedFaves.items).toEqual([]);
    const asked = since(booru, mark).map((r) => `${r.path} ${r.key ?? 'anonymous'}`);
    expect(asked.sort()).toEqual(
      [
        `${SEARCH} anonymous`,
        `/api/v1/json/images/${IDS.safe} anonymous`,
        `${SEARCH} ${alice.key}`,
        `${SEARCH} anonymous`,
      ].sort(),
    );
  });

  it('GIVEN a member search THEN it seeds no image into the shared cache (where a shared search does)', async () => {
    const { registry } = setup();
    const { alice } = accounts();
    const shared = registry.client(site);
    const first = await registry
      .memberClient(site, { id: 'alice', key: alice.key })
      .searchImages({ q: 'safe' });
    const id = first.items[0]?.id;
    if (id === undefined) throw new Error('expected a result');
    let mark = booru.requests.length;
    await shared.image(id);
    expect(since(booru, mark).map((r) => r.key)).toEqual([undefined]);
    // The same path with a shared search first costs nothing: the check above could see a seed.
    const sharedFirst = await shared.searchImages({ q: 'pony' });
    const seeded = sharedFirst.items.find((i) => i.id !== id)?.id;
    if (seeded === undefined) throw new Error('expected another result');
    mark = booru.requests.length;
    await shared.image(seeded);
    expect(since(booru, mark)).toHaveLength(0);
  });

  it("GIVEN forgetMember THEN that member's answers are gone at once and another member's stay", async () => {
    const { registry } = setup();
    const { alice, bob } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    const b = registry.memberClient(site, { id: 'bob', key: bob.key });
    await Promise.all([a.searchImages({ q: 'my:faves' }), b.searchImages({ q: 'my:faves' })]);
    let mark = booru.requests.length;
    await Promise.all([a.searchImages({ q: 'my:faves' }), b.searchImages({ q: 'my:faves' })]);
    expect(since(booru, mark)).toHaveLength(0);
    registry.forgetMember('alice');
    mark = booru.requests.length;
    // `a` was made before the forget: it must not reach the dropped answers either.
    await Promise.all([a.searchImages({ q: 'my:faves' }), b.searchImages({ q: 'my:faves' })]);
    expect(since(booru, mark).map((r) => r.key)).toEqual([alice.key]);
  });
});

describe('member clients: the budget class', () => {
  it('GIVEN member calls THEN they wait as `account` under the member (autocomplete stays autocomplete), shared ones keep their class', async () => {
    const { registry, waits } = setup();
    const { alice } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    await runWithRequestContext({ priority: 'interactive', server: 'g1', member: 'alice' }, async () => {
      await a.searchImages({ q: 'safe' });
      await a.tag('pony');
    });
    await runWithRequestContext({ priority: 'autocomplete', server: 'g1', member: 'alice' }, () =>
      a.searchTags({ q: 'po' }),
    );
    expect(waits.map((w) => w.priority)).toEqual(['account', 'interactive', 'autocomplete']);
  });
});

describe("member clients: the site's breaker", () => {
  it("GIVEN the board asked the shared client to wait THEN a member's request waits too: it fails at once and reaches nothing", async () => {
    const { registry } = setup();
    const { alice } = accounts();
    booru.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 60 }, path: SEARCH, times: 1 });
    await expect(registry.client(site).searchImages({ q: 'pony' })).rejects.toBeInstanceOf(RateLimitedError);
    const mark = booru.requests.length;
    await expect(
      registry.memberClient(site, { id: 'alice', key: alice.key }).image(IDS.safe),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(since(booru, mark)).toHaveLength(0);
  });
});

describe('member clients: a refused key, and secrets', () => {
  it('GIVEN a key the board no longer takes THEN filters/user and an upload fail as MemberKeyRefusedError, which names no key', async () => {
    const { registry, lines, events } = setup();
    const { alice, bob } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    booru.revokeKey(alice.key);
    const filters = await a.userFilters().catch((error: unknown) => error);
    const upload = await a
      .submitImage({ url: `${booru.url}/samples/refused.png`, tagInput: 'safe, pony, oc' })
      .catch((error: unknown) => error);
    booru.updateAccount(bob.key, { banned: true });
    const banned = await registry
      .memberClient(site, { id: 'bob', key: bob.key })
      .submitImage({ url: `${booru.url}/samples/banned.png`, tagInput: 'safe, pony, oc' })
      .catch((error: unknown) => error);
    expect(filters).toBeInstanceOf(MemberKeyRefusedError);
    expect(filters).toMatchObject({ refusedOn: 'filters', status: 403 });
    expect(upload).toBeInstanceOf(MemberKeyRefusedError);
    expect(upload).toMatchObject({ refusedOn: 'upload', status: 401 });
    expect(banned).toMatchObject({ refusedOn: 'upload', status: 403 });
    expect(banned).toBeInstanceOf(ForbiddenError);
    for (const error of [filters, upload, banned]) {
      if (!(error instanceof MemberKeyRefusedError)) throw new Error('expected a refusal');
      const told = `${error.message} ${error.path ?? ''} ${error.stack ?? ''} ${JSON.stringify(error)}`;
      expect(told).not.toContain(alice.key);
      expect(told).not.toContain(bob.key);
      expect(error.path).toContain('key=[REDACTED]');
    }
    const logged = lines.join('\n');
    expect(logged).not.toContain(alice.key);
    expect(logged).not.toContain(bob.key);
    expect(JSON.stringify(events)).not.toContain(alice.key);
  });

  it('GIVEN a member read that fails THEN neither the error nor the log lines carry the key', async () => {
    const { registry, lines } = setup();
    const { alice } = accounts();
    booru.inject({ fault: { kind: 'status', status: 503 }, path: SEARCH });
    const error = await registry
      .memberClient(site, { id: 'alice', key: alice.key })
      .searchImages({ q: 'my:faves' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiteUnavailableError);
    expect(booru.requests.filter((r) => r.key === alice.key).length).toBeGreaterThan(0);
    const told =
      error instanceof Error ? `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}` : '';
    expect(told).not.toContain(alice.key);
    expect(lines.join('\n')).not.toContain(alice.key);
    expect(lines.join('\n')).toContain('[REDACTED]');
  });

  it('GIVEN a member key THEN an upload is sent with it, not the operator key; a plain read error is no refusal', async () => {
    const { registry } = setup();
    const { alice } = accounts();
    const a = registry.memberClient(site, { id: 'alice', key: alice.key });
    const result = await a.submitImage({ url: `${booru.url}/samples/alice.png`, tagInput: 'safe, pony, oc' });
    expect(result.ok).toBe(true);
    expect(booru.requests.map((r) => `${r.method} ${r.key ?? ''}`)).toContain(`POST ${alice.key}`);
    expect(booru.requests.some((r) => r.key === FAKE_KEY)).toBe(false);
    const missing = await a.image(999_999_999).catch((e: unknown) => e);
    expect(missing).not.toBeInstanceOf(MemberKeyRefusedError);
  });

  it('GIVEN an empty key or member id THEN no client is made, and the refusal quotes nothing', () => {
    const { registry } = setup();
    expect(() => registry.memberClient(site, { id: 'alice', key: '   ' })).toThrow(RangeError);
    expect(() => registry.memberClient(site, { id: '', key: 'abcdefghij0123456789' })).toThrow(
      /^the member id is empty$/,
    );
  });
});

describe('uploads are sent once', () => {
  it.each(['member', 'operator'] as const)(
    'GIVEN the board fails POST /images THEN the %s client does not retry it',
    async (who) => {
      const { registry } = setup();
      const { alice } = accounts();
      booru.inject({ fault: { kind: 'status', status: 503 }, path: /^\/api\/v1\/json\/images$/ });
      const client =
        who === 'member'
          ? registry.memberClient(site, { id: 'alice', key: alice.key })
          : registry.client(site);
      const error = await client
        .submitImage({ url: `${booru.url}/samples/once.png`, tagInput: 'safe, pony, oc' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SiteUnavailableError);
      expect(booru.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    },
  );
});
