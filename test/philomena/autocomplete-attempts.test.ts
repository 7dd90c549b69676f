/**
 * Autocomplete calls are one attempt: the answer is due within Discord's 3 s, and a retry would only spend
 * autocomplete's small share of the budget. Other calls keep the client's retries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPhilomenaClient } from '../../src/philomena/client/index.js';
import { runWithRequestContext } from '../../src/philomena/request-context.js';
import { resolveSite } from '../../src/philomena/sites.js';
import { closeServers, serve } from './local-server.js';

afterEach(closeServers);

async function tagSearchAttempts(priority: 'autocomplete' | 'interactive' | undefined): Promise<number> {
  const server = await serve((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":"Internal Error"}');
  });
  const client = createPhilomenaClient({
    site: resolveSite(server.url),
    transport: { maxAttempts: 3, baseDelayMs: 1 },
    sleep: async () => undefined,
  });
  const search = () => client.searchTags({ q: 'name:tw*' }).catch(() => undefined);
  await (priority === undefined ? search() : runWithRequestContext({ priority, member: '1' }, search));
  await client.close();
  return server.requests.length;
}

describe('attempts by priority', () => {
  it('GIVEN an autocomplete call against a failing board THEN one attempt', async () => {
    expect(await tagSearchAttempts('autocomplete')).toBe(1);
  });

  it.each(['interactive', undefined] as const)(
    'GIVEN a %s call against a failing board THEN the client’s three attempts',
    async (priority) => {
      expect(await tagSearchAttempts(priority)).toBe(3);
    },
  );
});
