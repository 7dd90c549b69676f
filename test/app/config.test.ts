import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const TOKEN = 'MTIzNDU2Nzg5.secret-token-value';
const base = { DISCORD_TOKEN: TOKEN };

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('GIVEN only a token THEN every default applies', () => {
    const config = loadConfig(base);
    expect(config.discordToken).toBe(TOKEN);
    expect(config.site.id).toBe('derpibooru');
    expect(config.storeUrl).toBe('sqlite://data/bot.sqlite');
    expect(config.unfurl).toBe(true);
    expect(config.logLevel).toBe('info');
    expect(config.booruFilterId).toBeUndefined();
    expect(config.discordApiUrl).toBeUndefined();
    expect(config.booruApiKey).toBeUndefined();
    expect(config.commandRateLimit).toEqual({ limit: 5, windowMs: 10_000 });
    expect(config.unfurlRateLimit).toEqual({ limit: 10, windowMs: 60_000 });
  });

  it('GIVEN blank and whitespace values THEN they mean unset', () => {
    const config = loadConfig({
      ...base,
      DISCORD_APPLICATION_ID: '',
      DISCORD_API_URL: '   ',
      BOORU_URL: '',
      BOORU_API_KEY: ' ',
      BOORU_FILTER_ID: '',
      STORE_URL: '',
      UNFURL: '',
      COMMAND_RATE_LIMIT: ' ',
      UNFURL_RATE_LIMIT: '',
      LOG_LEVEL: '',
    });
    expect(config.commandRateLimit).toEqual({ limit: 5, windowMs: 10_000 });
    expect(config.unfurlRateLimit).toEqual({ limit: 10, windowMs: 60_000 });
    expect(config.discordApplicationId).toBeUndefined();
    expect(config.discordApiUrl).toBeUndefined();
    expect(config.site.id).toBe('derpibooru');
    expect(config.booruApiKey).toBeUndefined();
    expect(config.unfurl).toBe(true);
  });

  it('GIVEN no token THEN the problem says where to get one', () => {
    const problems = problemsOf({});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^DISCORD_TOKEN/);
    expect(problems[0]).toContain('Developer Portal');
    expect(problems[0]).toContain('Bot → Reset Token');
  });

  it('GIVEN a blank token THEN it is missing', () => {
    expect(problemsOf({ DISCORD_TOKEN: '  ' })[0]).toMatch(/^DISCORD_TOKEN is required/);
  });

  it('GIVEN many bad keys THEN every one is listed', () => {
    const problems = problemsOf({
      DISCORD_API_URL: 'ftp://example.test',
      BOORU_URL: 'not a site',
      BOORU_FILTER_ID: 'abc',
      STORE_URL: 'redis://x/db',
      UNFURL: 'maybe',
      LOG_LEVEL: 'loud',
      DISCORD_GUILD_ID: '12ab',
      COMMAND_RATE_LIMIT: 'fast',
      UNFURL_RATE_LIMIT: '10 per minute',
    });
    const keys = problems.map((p) => p.split(' ')[0]);
    expect(keys.sort()).toEqual(
      [
        'BOORU_FILTER_ID',
        'BOORU_URL',
        'COMMAND_RATE_LIMIT',
        'UNFURL_RATE_LIMIT',
        'DISCORD_API_URL',
        'DISCORD_GUILD_ID',
        'DISCORD_TOKEN',
        'LOG_LEVEL',
        'STORE_URL',
        'UNFURL',
      ].sort(),
    );
  });

  it.each([['0'], ['-5'], ['1.5'], ['12abc'], ['1e3']])(
    'GIVEN BOORU_FILTER_ID=%s THEN it is refused',
    (value) => {
      expect(problemsOf({ ...base, BOORU_FILTER_ID: value })[0]).toMatch(
        /^BOORU_FILTER_ID must be a filter id/,
      );
    },
  );

  it('GIVEN a filter id THEN it is a number', () => {
    expect(loadConfig({ ...base, BOORU_FILTER_ID: ' 56027 ' }).booruFilterId).toBe(56027);
  });

  it.each([['derpibooru'], ['unknownbooru'], ['javascript:alert(1)'], ['http//missing-colon']])(
    'GIVEN BOORU_URL=%s THEN only known names and http(s) URLs pass',
    (value) => {
      if (value === 'derpibooru')
        expect(loadConfig({ ...base, BOORU_URL: value }).site.id).toBe('derpibooru');
      else
        expect(problemsOf({ ...base, BOORU_URL: value })[0]).toMatch(/^BOORU_URL must be a known site name/);
    },
  );

  it('GIVEN a known site name in any case or a custom URL THEN the site resolves', () => {
    expect(loadConfig({ ...base, BOORU_URL: 'Furbooru' }).site.id).toBe('furbooru');
    const custom = loadConfig({ ...base, BOORU_URL: 'http://127.0.0.1:8080' }).site;
    expect(custom.known).toBe(false);
    expect(custom.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it.each([
    ['http://derpibooru.org', 'derpibooru'],
    ['http://www.derpibooru.org/', 'derpibooru'],
    ['HTTP://TrixieBooru.org', 'derpibooru'],
    ['https://www.furbooru.org', 'furbooru'],
  ])('GIVEN BOORU_URL=%s (a known host, any scheme) THEN the known https site', (value, id) => {
    const site = loadConfig({ ...base, BOORU_URL: value }).site;
    expect(site.id).toBe(id);
    expect(site.known).toBe(true);
    expect(site.baseUrl).toBe(`https://${site.host}`);
  });

  it.each([
    ['http://192.168.1.20:4000', 'http://192.168.1.20:4000'],
    ['http://10.0.0.5/booru/', 'http://10.0.0.5/booru'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('GIVEN BOORU_URL=%s (a local-network board) THEN plain http is kept', (value, baseUrl) => {
    expect(loadConfig({ ...base, BOORU_URL: value }).site.baseUrl).toBe(baseUrl);
  });

  it.each([['http://booru.example'], ['http://8.8.8.8:8080'], ['http://derpibooru.org:8080']])(
    'GIVEN BOORU_URL=%s (plain http to a public host) THEN it is refused: must be https, with how to fix it',
    (value) => {
      const problems = problemsOf({ ...base, BOORU_URL: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^BOORU_URL must be https: /);
      expect(problems[0]).toContain('API key');
      expect(problems[0]).toContain('an https URL like https://booru.example');
      expect(problems[0]).not.toContain(value);
    },
  );

  it('GIVEN DISCORD_API_URL with a trailing slash THEN it is trimmed; a non-URL is refused', () => {
    expect(loadConfig({ ...base, DISCORD_API_URL: 'http://127.0.0.1:9/api/' }).discordApiUrl).toBe(
      'http://127.0.0.1:9/api',
    );
    expect(problemsOf({ ...base, DISCORD_API_URL: 'nope' })[0]).toMatch(
      /^DISCORD_API_URL must be an http\(s\) URL/,
    );
  });

  it.each([
    'http://127.0.0.1:8080/api',
    'http://localhost:8080/api',
    'http://192.168.1.20/api',
    'http://10.0.0.5:3000/api',
    'http://[::1]:8080/api',
    'http://discord-proxy.internal/api',
    'https://discord-proxy.example.com/api',
  ])(
    'GIVEN DISCORD_API_URL=%s THEN it is accepted (https, or http on this machine or a private network)',
    (value) => {
      expect(loadConfig({ ...base, DISCORD_API_URL: value }).discordApiUrl).toBe(value);
    },
  );

  it.each([
    ['ftp://127.0.0.1/api', /^DISCORD_API_URL must be an http\(s\) URL: /],
    ['http:8.8.8.8/api', /^DISCORD_API_URL must be https: /],
  ])('GIVEN DISCORD_API_URL=%s THEN one problem, as the URL parser reads it', (value, problem) => {
    const problems = problemsOf({ ...base, DISCORD_API_URL: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('GIVEN DISCORD_API_URL without // after http: THEN it is read as the URL parser reads it, as before zod checked it', () => {
    expect(loadConfig({ ...base, DISCORD_API_URL: 'http:127.0.0.1:9/api' }).discordApiUrl).toBe(
      'http:127.0.0.1:9/api',
    );
  });

  it.each(['http://discord-proxy.example.com/api', 'http://203.0.113.7:8080/api', 'http://8.8.8.8/api'])(
    'GIVEN DISCORD_API_URL=%s (plain http to a public host) THEN one line says it must be https, without repeating it (review L12)',
    (value) => {
      const problems = problemsOf({ ...base, DISCORD_API_URL: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^DISCORD_API_URL must be https: plain http would send the bot token in cleartext/,
      );
      expect(problems[0]).not.toContain(value);
    },
  );

  it.each([
    ['COMMAND_RATE_LIMIT', '100/10s', { limit: 100, windowMs: 10_000 }],
    ['UNFURL_RATE_LIMIT', '1000/1m', { limit: 1000, windowMs: 60_000 }],
  ])('GIVEN %s=%s, the largest count THEN it is accepted', (key, value, expected) => {
    const config = loadConfig({ ...base, [key]: value });
    expect(key === 'COMMAND_RATE_LIMIT' ? config.commandRateLimit : config.unfurlRateLimit).toEqual(expected);
  });

  it.each([
    ['COMMAND_RATE_LIMIT', '101/10s', 100],
    ['COMMAND_RATE_LIMIT', '99999/1h', 100],
    ['UNFURL_RATE_LIMIT', '1001/1m', 1000],
    ['UNFURL_RATE_LIMIT', '99999/24h', 1000],
  ])(
    'GIVEN %s=%s THEN it is refused with the largest count and how to fix it (review L14)',
    (key, value, max) => {
      const problems = problemsOf({ ...base, [key]: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${key} allows at most ${max} per window`));
      expect(problems[0]).toContain(`count 1 to ${max}), or off`);
    },
  );

  it.each([
    ['true', true],
    ['1', true],
    ['ON', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['off', false],
    ['No', false],
  ])('GIVEN UNFURL=%s THEN unfurl is %s', (value, expected) => {
    expect(loadConfig({ ...base, UNFURL: value }).unfurl).toBe(expected);
  });

  it.each([['maybe'], ['y'], ['N'], ['enabled'], ['disabled'], ['o n']])(
    "GIVEN UNFURL=%s (not one of its words; zod's stringbool alone would take y/n/enabled/disabled) THEN it is refused",
    (value) => {
      expect(problemsOf({ ...base, UNFURL: value })).toEqual([
        'UNFURL must be one of true/false, 1/0, on/off, yes/no: set UNFURL=on or UNFURL=off',
      ]);
    },
  );

  it.each([
    ['5/10s', { limit: 5, windowMs: 10_000 }],
    ['3/10', { limit: 3, windowMs: 10_000 }],
    [' 20 / 1m ', { limit: 20, windowMs: 60_000 }],
    ['100/1h', { limit: 100, windowMs: 3_600_000 }],
    ['2/1500ms', { limit: 2, windowMs: 1_500 }],
    ['10/1M', { limit: 10, windowMs: 60_000 }],
    ['off', undefined],
    ['OFF', undefined],
    ['0', undefined],
    ['none', undefined],
    ['0/10s', undefined],
  ])('GIVEN COMMAND_RATE_LIMIT=%s THEN the limit is %o', (value, expected) => {
    expect(loadConfig({ ...base, COMMAND_RATE_LIMIT: value }).commandRateLimit).toEqual(expected);
    expect(loadConfig({ ...base, UNFURL_RATE_LIMIT: value }).unfurlRateLimit).toEqual(expected);
  });

  it.each([
    ['5'],
    ['5/'],
    ['/10s'],
    ['-1/10s'],
    ['5/0s'],
    ['5/999ms'],
    ['5/25h'],
    ['1.5/10s'],
    ['5/10d'],
    ['on'],
  ])('GIVEN COMMAND_RATE_LIMIT=%s THEN it is refused with the accepted form', (value) => {
    const problems = problemsOf({ ...base, COMMAND_RATE_LIMIT: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^COMMAND_RATE_LIMIT must be <count>\/<window> such as 5\/10s/);
    expect(problems[0]).toContain('or off');
  });

  it('GIVEN no METRICS_PORT THEN there is no metrics server; METRICS_HOST defaults to this machine', () => {
    const config = loadConfig({ ...base, METRICS_PORT: '  ' });
    expect(config.metricsPort).toBeUndefined();
    expect(config.metricsHost).toBe('127.0.0.1');
  });

  it('GIVEN METRICS_PORT and METRICS_HOST THEN they are read as a port and an address', () => {
    expect(loadConfig({ ...base, METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    for (const host of ['0.0.0.0', '::', '::1', 'metrics.internal', 'localhost']) {
      expect(loadConfig({ ...base, METRICS_HOST: host }).metricsHost).toBe(host);
    }
  });

  it.each(['0', '65536', '-1', '9464x', 'http://x', '1.5'])(
    'GIVEN METRICS_PORT=%s THEN one problem says what a port is and how to fix it',
    (value) => {
      const problems = problemsOf({ ...base, METRICS_PORT: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^METRICS_PORT must be a port number from 1 to 65535: for example METRICS_PORT=9464/,
      );
    },
  );

  it('GIVEN no SHARD_COUNT THEN the process connects every shard Discord recommends', () => {
    expect(loadConfig(base).shards).toBe('auto');
    expect(loadConfig({ ...base, SHARD_COUNT: ' ', SHARD_IDS: '' }).shards).toBe('auto');
  });

  it('GIVEN SHARD_COUNT alone THEN this process connects all of them', () => {
    expect(loadConfig({ ...base, SHARD_COUNT: '3' }).shards).toEqual({ count: 3, ids: [0, 1, 2] });
  });

  it('GIVEN SHARD_IDS as ids and ranges THEN they are read sorted, within SHARD_COUNT', () => {
    expect(loadConfig({ ...base, SHARD_COUNT: '16', SHARD_IDS: '8, 0-2,15' }).shards).toEqual({
      count: 16,
      ids: [0, 1, 2, 8, 15],
    });
  });

  it.each([
    [
      { SHARD_IDS: '0,1' },
      /^SHARD_IDS needs SHARD_COUNT \(every process must agree on it\): for example SHARD_IDS=0,1/,
    ],
    [
      { SHARD_IDS: '0,2', SHARD_COUNT: '2' },
      /^SHARD_IDS names a shard 2 or above: ids run from 0 to SHARD_COUNT - 1/,
    ],
    [{ SHARD_IDS: '0,0', SHARD_COUNT: '2' }, /^SHARD_IDS names a shard twice/],
    [{ SHARD_IDS: '3-1', SHARD_COUNT: '4' }, /^SHARD_IDS must be shard ids and ranges such as 0,1,2 or 0-3/],
    [{ SHARD_IDS: 'one', SHARD_COUNT: '4' }, /^SHARD_IDS must be shard ids and ranges/],
    [{ SHARD_COUNT: '0' }, /^SHARD_COUNT must be a whole number from 1 to 100000: for example SHARD_COUNT=4/],
    [{ SHARD_COUNT: 'auto' }, /^SHARD_COUNT must be a whole number/],
  ])('GIVEN %o THEN one problem says what is wrong with the shards and how to fix it', (env, message) => {
    const problems = problemsOf({ ...base, ...env });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it.each(['http://0.0.0.0', '1.2.3.4:80', 'host name', '/tmp/sock'])(
    'GIVEN METRICS_HOST=%s THEN one problem says what to bind to',
    (value) => {
      const problems = problemsOf({ ...base, METRICS_HOST: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        /^METRICS_HOST must be an IP address or a host name to bind to: for example/,
      );
    },
  );

  it.each([
    'sqlite://data/bot.sqlite',
    'sqlite:///var/lib/bot/bot.sqlite',
    'memory://',
    'redis://127.0.0.1:6379',
    'redis://redis',
    'redis://:pass@redis.internal:6379/2',
    'rediss://bot:p%40ss@redis.example:6380/0',
  ])('GIVEN STORE_URL=%s THEN it is taken as written', (url) => {
    expect(loadConfig({ ...base, STORE_URL: url }).storeUrl).toBe(url);
  });

  it.each([
    ['redis://127.0.0.1:6379/cache', /^STORE_URL names a Redis db that is not a number: for example /],
    ['redis://', /^STORE_URL names no Redis host: for example /],
    ['redis:127.0.0.1:6379', /^STORE_URL names no Redis host: for example /],
    ['redis://127.0.0.1:70000', /^STORE_URL is not a valid Redis URL \(percent-encode/],
    ['redis://127.0.0.1:6379/0?password=x', /^STORE_URL has a \?query or #fragment/],
    ['postgres://db/bot', /^STORE_URL must be sqlite:\/\/<path>, redis:\/\/\[user:password@\]host/],
    ['sqlite://', /^STORE_URL needs a file path after sqlite:\/\//],
  ])('GIVEN the malformed STORE_URL=%s THEN one line says what is wrong and how to fix it', (url, line) => {
    const problems = problemsOf({ ...base, STORE_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(line);
    expect(problems[0]).toContain('redis://127.0.0.1:6379/0');
    expect(problems[0]).not.toContain('\n');
  });

  it('GIVEN a malformed Redis URL holding a password THEN the password is not echoed', () => {
    const secret = 'redis-password-never-echoed';
    const problems = problemsOf({ ...base, STORE_URL: `redis://user:${secret}@host:6379/notadb` });
    expect(problems.join('\n')).not.toContain(secret);
    expect(problems[0]).toMatch(/^STORE_URL names a Redis db/);
  });

  it('GIVEN secrets in the wrong keys THEN no value is echoed in the error', () => {
    const secret = 'super-secret-value-123456';
    let message = '';
    try {
      loadConfig({ DISCORD_TOKEN: '', DISCORD_API_URL: secret, BOORU_URL: secret, LOG_LEVEL: secret });
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).toContain('DISCORD_API_URL');
    expect(message).not.toContain(secret);
  });

  it('GIVEN the schema THEN its keys are exactly those of .env.example', async () => {
    const { readFile } = await import('node:fs/promises');
    const example = await readFile(new URL('../../.env.example', import.meta.url), 'utf8');
    const keys = example
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split('=')[0]);
    expect(keys.sort()).toEqual(Object.keys(configSchema.in.shape).sort());
  });
});

describe('feed durations', () => {
  it('GIVEN nothing THEN feeds check every 5 minutes and plain-channel feeds wait 30 minutes for ratings to settle', () => {
    const config = loadConfig(base);
    expect(config.feedIntervalMs).toBe(300_000);
    expect(config.feedSettleMs).toBe(1_800_000);
  });

  it('GIVEN FEED_SETTLE 0, 45m, 90s or 2h THEN it is read as such', () => {
    expect(loadConfig({ ...base, FEED_SETTLE: '0' }).feedSettleMs).toBe(0);
    expect(loadConfig({ ...base, FEED_SETTLE: '45m' }).feedSettleMs).toBe(2_700_000);
    expect(loadConfig({ ...base, FEED_SETTLE: '90s' }).feedSettleMs).toBe(90_000);
    expect(loadConfig({ ...base, FEED_SETTLE: '2h' }).feedSettleMs).toBe(7_200_000);
  });

  it('GIVEN FEED_SETTLE over a day or not a duration, or FEED_INTERVAL under a minute THEN the problem is named', () => {
    expect(problemsOf({ ...base, FEED_SETTLE: '25h' })).toEqual([
      expect.stringMatching(/^FEED_SETTLE.*must be a duration from 0 to 24h/),
    ]);
    expect(problemsOf({ ...base, FEED_SETTLE: 'soon' })).toEqual([expect.stringMatching(/^FEED_SETTLE/)]);
    expect(problemsOf({ ...base, FEED_INTERVAL: '30s' })).toEqual([
      expect.stringMatching(/^FEED_INTERVAL.*must be a duration from 1m to 24h/),
    ]);
  });
});

describe('the floor settings', () => {
  it('GIVEN neither THEN the defaults on and no tags of the operator', () => {
    expect(loadConfig(base).floor).toEqual({ defaults: true, neverShow: [] });
  });

  it('GIVEN NEVER_SHOW_TAGS THEN names as the board writes them, once each, blanks dropped', () => {
    const floor = loadConfig({ ...base, NEVER_SHOW_TAGS: ' Gore ,, blood,GORE, Candy   Gore ' }).floor;
    expect(floor.neverShow).toEqual(['gore', 'blood', 'candy gore']);
  });

  it('GIVEN more than 200 tags or a name over 100 characters THEN a problem naming the limit', () => {
    const many = Array.from({ length: 201 }, (_, i) => `tag ${i}`).join(',');
    expect(problemsOf({ ...base, NEVER_SHOW_TAGS: many }).join('\n')).toMatch(
      /NEVER_SHOW_TAGS.*at most 200 tags/,
    );
    expect(problemsOf({ ...base, NEVER_SHOW_TAGS: 'x'.repeat(101) }).join('\n')).toMatch(
      /at most 100 characters/,
    );
  });

  it('GIVEN FLOOR_DEFAULTS off THEN off; on THEN on; anything else THEN a problem (no accidental off)', () => {
    expect(loadConfig({ ...base, FLOOR_DEFAULTS: 'off' }).floor.defaults).toBe(false);
    expect(loadConfig({ ...base, FLOOR_DEFAULTS: 'on' }).floor.defaults).toBe(true);
    for (const value of ['false', '0', 'no', 'disabled'])
      expect(problemsOf({ ...base, FLOOR_DEFAULTS: value }).join('\n')).toMatch(/FLOOR_DEFAULTS.*on or off/);
  });
});
