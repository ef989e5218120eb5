/**
 * configFromEnv (server/config.ts) refuses settings that would start a process wrongly rather than
 * run it quietly on something else: a DATABASE_URL that is not PostgreSQL's (which used to fall back
 * to a private PGlite), a DATABASE_POOL_SIZE the seed cannot start with, a REDIS_URL that is not a
 * Redis address, signing-key entries it cannot read. Empty credentials and names count as unset:
 * the demo value and its warning, and production refuses them.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { configFromEnv, configWarnings } from '../../server/config.ts';

const base = { PORT: '0' };
const refusal = (env: NodeJS.ProcessEnv): string => {
  try {
    configFromEnv({ ...base, ...env });
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('DATABASE_URL', () => {
  it('refuses an address that is not postgres://, postgresql:// or memory://', () => {
    for (const url of ['notaurl', 'mysql://u@h/db', 'postgres:/h/db', 'localhost:5432/db'])
      expect(refusal({ DATABASE_URL: url })).toMatch(/^DATABASE_URL must be a postgres:\/\/ address/);
  });

  it('takes the scheme in any case (URL schemes are case-insensitive) and never shows the password', () => {
    expect(configFromEnv({ ...base, DATABASE_URL: 'POSTGRES://u:pw@db.example:5432/x' }).databaseUrl).toBe(
      'postgres://u:pw@db.example:5432/x',
    );
    expect(configFromEnv({ ...base, DATABASE_URL: 'PostgreSQL://u@h/x' }).databaseUrl).toBe(
      'postgresql://u@h/x',
    );
    expect(configFromEnv({ ...base, DATABASE_URL: 'MEMORY://' }).databaseUrl).toBe('memory://');
    expect(refusal({ DATABASE_URL: 'mysql://u:secret-pw@h/db' })).not.toContain('secret-pw');
  });

  it('empty is unset (PGlite in CHARLA_DATA_DIR)', () => {
    expect(configFromEnv({ ...base, DATABASE_URL: '' }).databaseUrl).toBeUndefined();
  });
});

describe('CHARLA_STORE_TEMPLATE', () => {
  it('names the dump a new embedded store starts from; unset or empty, none', () => {
    expect(configFromEnv({ ...base, CHARLA_STORE_TEMPLATE: '/tmp/cluster.tar' }).storeTemplate).toBe(
      '/tmp/cluster.tar',
    );
    expect(configFromEnv({ ...base, CHARLA_STORE_TEMPLATE: '' }).storeTemplate).toBeUndefined();
    expect(configFromEnv(base).storeTemplate).toBeUndefined();
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('must be a whole number of at least 2', () => {
    for (const size of ['1', '0', '-3', 'abc', '2.5', '10x'])
      expect(refusal({ DATABASE_POOL_SIZE: size })).toMatch(
        /^DATABASE_POOL_SIZE must be a whole number of at least 2/,
      );
    expect(refusal({ DATABASE_POOL_SIZE: '2' })).toBe('accepted');
    expect(refusal({ DATABASE_POOL_SIZE: '' })).toBe('accepted');
  });
});

describe('CHARLA_SHUTDOWN_DELAY_MS', () => {
  it('must be digits only, at most 2^31-1 ms (what a timer takes)', () => {
    for (const delay of [
      '99999999999',
      '2147483648',
      '1e3',
      '0x10',
      ' 100',
      '100 ',
      '3000.0',
      '-1',
      '+5',
      '5s',
    ])
      expect(refusal({ CHARLA_SHUTDOWN_DELAY_MS: delay }), delay).toMatch(
        /^CHARLA_SHUTDOWN_DELAY_MS must be a whole number of milliseconds, 0 to 2147483647/,
      );
    expect(configFromEnv({ ...base, CHARLA_SHUTDOWN_DELAY_MS: '2147483647' }).shutdownDelayMs).toBe(
      2147483647,
    );
    expect(configFromEnv({ ...base, CHARLA_SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs).toBe(0);
    expect(configFromEnv({ ...base, CHARLA_SHUTDOWN_DELAY_MS: '3000' }).shutdownDelayMs).toBe(3000);
    expect(configFromEnv({ ...base, CHARLA_SHUTDOWN_DELAY_MS: '' }).shutdownDelayMs).toBe(0);
  });
});

describe('REDIS_URL', () => {
  it('must be a redis:// or rediss:// address', () => {
    for (const url of ['localhost:6379', 'http://h:6379', 'redis:/h', 'notaurl'])
      expect(refusal({ REDIS_URL: url })).toMatch(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ address/);
    expect(configFromEnv({ ...base, REDIS_URL: 'rediss://:pw@h:6380' }).redisUrl).toBe('rediss://:pw@h:6380');
    expect(configFromEnv({ ...base, REDIS_URL: '' }).redisUrl).toBeUndefined();
  });
});

describe('CHARLA_SIGNING_KEYS', () => {
  it('refuses an entry that is not id:secret, naming it by its place and id', () => {
    expect(refusal({ CHARLA_SIGNING_KEYS: 'garbage' })).toMatch(
      /^CHARLA_SIGNING_KEYS .*entry 1 has no "id:"/,
    );
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k2:new,junk' })).toMatch(
      /CHARLA_SIGNING_KEYS .*entry 2 has no "id:"/,
    );
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k2:new,:nokey' })).toMatch(/entry 2 has no usable key id/);
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k2:new,k3:' })).toMatch(/entry 2 "k3:" has no secret/);
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k2:a,k2:b' })).toMatch(/entry 2 gives the key id "k2" twice/);
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k&2:a' })).toMatch(/entry 1 has no usable key id/);
    // Digits only: an object puts such keys first, so "2:new,1:old" signed with 1.
    expect(refusal({ CHARLA_SIGNING_KEYS: '2:new,1:old' })).toMatch(
      /entry 1 has the key id "2", only digits.*"k2"/,
    );
  });

  it('never shows a secret in its refusal', () => {
    expect(refusal({ CHARLA_SIGNING_KEYS: 'k2:topsecret,junk' })).not.toContain('topsecret');
    // An entry without an id may be a secret given without one.
    expect(refusal({ CHARLA_SIGNING_KEYS: 'my-real-secret' })).not.toContain('my-real-secret');
  });

  it('reads the documented form, the first key signing', () => {
    const config = configFromEnv({ ...base, CHARLA_SIGNING_KEYS: 'k2:new, k1:old' });
    expect(config.signingKeys).toEqual({ k2: 'new', k1: 'old' });
    expect(Object.keys(config.signingKeys)[0]).toBe('k2');
    expect(config.demoValues.join()).not.toContain('CHARLA_SIGNING_SECRET');
  });
});

describe('empty values count as unset', () => {
  it('falls back to the demo values, and says so', () => {
    const config = configFromEnv({
      ...base,
      CHARLA_CLIENT_ID: '',
      CHARLA_CLIENT_SECRET: '',
      CHARLA_COMPANY_TOKEN: '',
      CHARLA_COMPANY_ID: '',
      CHARLA_COMPANY_NAME: '',
      CHARLA_INSTANCE_ID: '',
      CHARLA_SIGNING_SECRET: '',
    });
    expect(config.clientId).toBe('demo-client');
    expect(config.clientSecret).toBe('demo-secret');
    expect(config.companyToken).toBe('demo-company-token');
    expect(config.companyId).toBe('company-1');
    expect(config.companyName).toBe('Charla Demo');
    expect(config.instanceId).toMatch(/^127\.0\.0\.1:0:\d+$/);
    expect(Object.values(config.signingKeys)).toEqual(['demo-signing-secret-change-me']);
    expect(config.demoValues).toEqual([
      'CHARLA_CLIENT_ID (demo-client)',
      'CHARLA_CLIENT_SECRET (demo-secret)',
      'CHARLA_COMPANY_TOKEN (demo-company-token)',
      'CHARLA_SIGNING_SECRET (a demo signing key)',
    ]);
    expect(configWarnings(config).join()).toContain('DEMO VALUES IN USE');
  });

  it('production refuses them as it refuses unset ones', () => {
    expect(
      refusal({
        NODE_ENV: 'production',
        CHARLA_CLIENT_ID: '',
        CHARLA_CLIENT_SECRET: '',
        CHARLA_COMPANY_TOKEN: 'token',
        CHARLA_SIGNING_SECRET: 'secret',
      }),
    ).toMatch(/In production CHARLA_CLIENT_ID, CHARLA_CLIENT_SECRET/);
  });

  it('says at start that CHARLA_SIGNING_SECRET is not used when a CHARLA_SIGNING_KEYS list is set beside it', () => {
    const unused = (env: NodeJS.ProcessEnv) =>
      configWarnings(configFromEnv({ ...base, ...env })).some((w) =>
        w.startsWith('CHARLA_SIGNING_SECRET is set and not used'),
      );
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k2:s2' })).toBe(true);
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k1:other' })).toBe(true);
    const both = configFromEnv({ ...base, CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k2:s2' });
    expect(both.signingKeys).toEqual({ k2: 's2' });
    expect(unused({ CHARLA_SIGNING_SECRET: 's1' })).toBe(false);
    expect(unused({ CHARLA_SIGNING_KEYS: 'k2:s2,k1:s1' })).toBe(false);
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k1:s1' })).toBe(false);
    // The README's rotation: the old secret kept as k1 beside the new key, in either place.
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k2:s2,k1:s1' })).toBe(false);
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: 'k1:s1,k2:s2' })).toBe(false);
    expect(unused({ CHARLA_SIGNING_SECRET: 's1', CHARLA_SIGNING_KEYS: ' , ' })).toBe(false);
  });

  it('production names the settings that are missing, and only those', () => {
    const all = {
      NODE_ENV: 'production',
      CHARLA_CLIENT_ID: 'client-id',
      CHARLA_CLIENT_SECRET: 'a-client-secret-of-32-characters',
      CHARLA_COMPANY_TOKEN: 'a-company-token-of-32-characters',
      CHARLA_SIGNING_SECRET: 'f'.repeat(64),
    };
    expect(refusal({ ...all, CHARLA_CLIENT_ID: '' })).toMatch(/; missing: CHARLA_CLIENT_ID\.$/);
    expect(refusal({ ...all, CHARLA_COMPANY_TOKEN: '', CHARLA_SIGNING_SECRET: '' })).toMatch(
      /; missing: CHARLA_COMPANY_TOKEN, CHARLA_SIGNING_SECRET \(or CHARLA_SIGNING_KEYS\)\.$/,
    );
  });

  it('an empty client id and secret do not log in with empty Basic credentials', async () => {
    const config = configFromEnv({
      ...base,
      DATABASE_URL: 'memory://',
      CHARLA_CLIENT_ID: '',
      CHARLA_CLIENT_SECRET: '',
      CHARLA_SEED_DEMO: '0',
      CHARLA_SERVE_STATIC: '0',
      CHARLA_SCHEDULER: '0',
      LOG_LEVEL: 'silent',
    });
    const app = await buildApp(config);
    try {
      const get = (user: string) =>
        app.inject({
          url: '/v1/campaigns?botId=b&startAt=2020-01-01&endAt=2030-01-01',
          headers: { authorization: `Basic ${Buffer.from(user).toString('base64')}` },
        });
      expect((await get(':')).statusCode).toBe(401);
      expect((await get('demo-client:demo-secret')).statusCode).not.toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('npm start with a bad setting', () => {
  it('says why before building anything, and exits 1', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const run = spawnSync('npm', ['start'], {
      cwd: root,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LOG_LEVEL: 'bogus', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Charla cannot start: LOG_LEVEL must be one of');
    // The build (its "Building Charla", then a while) never ran.
    expect(run.stdout + run.stderr).not.toContain('Building Charla');
  }, 90_000);
});
