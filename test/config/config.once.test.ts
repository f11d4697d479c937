// loadConfig: the one reader of the environment. Every variable has a default, accepts exactly what the
// configuration table says it accepts, and refuses anything else with one line that starts with the variable's name.
import assert from 'node:assert/strict'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import {
  ConfigError,
  CONFIG_VARIABLES,
  findMisspeltVariables,
  findRetiredVariables,
  loadConfig,
} from '../../src/config.js'

/** Runs loadConfig and returns the ConfigError it must throw. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`)
    return error
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`)
}

describe('loadConfig defaults', () => {
  it('works with no configuration at all', () => {
    assert.deepEqual(loadConfig({}), {
      port: 8080,
      host: '127.0.0.1',
      database: { kind: 'sqlite', path: join(process.cwd(), 'data', 'petstore.db') },
      staticApiKeys: [],
      publicBaseUrl: undefined,
      productionBaseUrl: undefined,
      stagingBaseUrl: undefined,
      logLevel: 'info',
      redisUrl: undefined,
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 1500,
      migrateOnStart: true,
      idempotencyKeyTtlHours: 24,
      rateLimitPerKey: 600,
      rateLimitAnonymous: 60,
      rateLimitWindowSeconds: 60,
      rateLimitNamespace: 'petstore:rate-limit',
      trustProxy: false,
      metricsToken: undefined,
      eventRetentionDays: 30,
      eventStreamsPerKey: 10,
      webhookSecretKey: undefined,
      webhookAllowPrivateNetworks: false,
      webhookRetryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      webhookDeliveryRetentionDays: 30,
    })
  })

  it('treats empty values as unset', () => {
    const env = {
      PORT: '',
      HOST: '',
      DATABASE_URL: '',
      PETSTORE_API_KEYS: '',
      PUBLIC_BASE_URL: '',
      PRODUCTION_BASE_URL: '',
      STAGING_BASE_URL: '',
      LOG_LEVEL: '',
      REDIS_URL: '',
      DATABASE_POOL_SIZE: '',
      DATABASE_STATEMENT_TIMEOUT_MS: '',
      MIGRATE_ON_START: '',
      RATE_LIMIT_PER_KEY: '',
      RATE_LIMIT_ANONYMOUS: '',
      RATE_LIMIT_WINDOW_SECONDS: '',
      RATE_LIMIT_NAMESPACE: '',
      TRUST_PROXY: '',
      METRICS_TOKEN: '',
      EVENT_RETENTION_DAYS: '',
      EVENT_STREAMS_PER_KEY: '',
      WEBHOOK_SECRET_KEY: '',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '',
      WEBHOOK_RETRY_SCHEDULE: '',
      WEBHOOK_DELIVERY_RETENTION_DAYS: '',
    }
    assert.deepEqual(loadConfig(env), loadConfig({}))
  })

  it('ignores variables it does not own', () => {
    assert.deepEqual(
      loadConfig({ NODE_ENV: 'production', HOME: '/root', TEST_DATABASE_URL: 'mysql://x' }),
      loadConfig({}),
    )
  })
})

describe('loadConfig accepts valid values', () => {
  it('PostgreSQL pool size, statement time-out and MIGRATE_ON_START', () => {
    const config = loadConfig({
      DATABASE_POOL_SIZE: '25',
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
      MIGRATE_ON_START: 'false',
    })
    assert.deepEqual(
      [config.databasePoolSize, config.databaseStatementTimeoutMs, config.migrateOnStart],
      [25, 5000, false],
    )
    assert.equal(loadConfig({ MIGRATE_ON_START: '1' }).migrateOnStart, true)
    assert.equal(loadConfig({ MIGRATE_ON_START: '0' }).migrateOnStart, false)
  })

  it('the event feed: retention days, open streams per key', () => {
    const config = loadConfig({ EVENT_RETENTION_DAYS: '7', EVENT_STREAMS_PER_KEY: '200' })
    assert.deepEqual([config.eventRetentionDays, config.eventStreamsPerKey], [7, 200])
  })

  it('webhooks: the secret key (hex or base64), the retry schedule (units ms to d, or none), private networks, \
retention', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, index) => index * 7))
    const hex = key.toString('hex')
    assert.deepEqual(loadConfig({ WEBHOOK_SECRET_KEY: hex }).webhookSecretKey, key)
    assert.deepEqual(loadConfig({ WEBHOOK_SECRET_KEY: hex.toUpperCase() }).webhookSecretKey, key)
    assert.deepEqual(loadConfig({ WEBHOOK_SECRET_KEY: key.toString('base64') }).webhookSecretKey, key)
    assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s' }).webhookRetryScheduleMs, [1000, 2000, 5000])
    assert.deepEqual(
      loadConfig({ WEBHOOK_RETRY_SCHEDULE: '250ms, 1m,2h,1d' }).webhookRetryScheduleMs,
      [250, 60_000, 7_200_000, 86_400_000],
    )
    assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'none' }).webhookRetryScheduleMs, [])
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_DELIVERY_RETENTION_DAYS: '1' })
    assert.deepEqual([config.webhookAllowPrivateNetworks, config.webhookDeliveryRetentionDays], [true, 1])
  })

  it('IDEMPOTENCY_KEY_TTL_HOURS (1 to 8760)', () => {
    assert.equal(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '48' }).idempotencyKeyTtlHours, 48)
    assert.equal(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '1' }).idempotencyKeyTtlHours, 1)
  })

  it('PORT: integers from 0 to 65535', () => {
    assert.equal(loadConfig({ PORT: '0' }).port, 0)
    assert.equal(loadConfig({ PORT: '3000' }).port, 3000)
    assert.equal(loadConfig({ PORT: '65535' }).port, 65535)
  })

  it('HOST: names and IP addresses', () => {
    for (const host of ['0.0.0.0', 'localhost', '::', '::1', 'petstore.internal', '255.255.255.255', '10.0.0.1']) {
      assert.equal(loadConfig({ HOST: host }).host, host)
    }
  })

  it('DATABASE_URL: file: and sqlite: select SQLite, relative paths resolve against the working directory', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:/var/lib/petstore/pets.db' }).database, {
      kind: 'sqlite',
      path: '/var/lib/petstore/pets.db',
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/petstore/pets.db' }).database, {
      kind: 'sqlite',
      path: '/var/lib/petstore/pets.db',
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:///var/lib/petstore/pets.db' }).database, {
      kind: 'sqlite',
      path: '/var/lib/petstore/pets.db',
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:./pets.db' }).database, {
      kind: 'sqlite',
      path: resolve('pets.db'),
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:state/pets.db' }).database, {
      kind: 'sqlite',
      path: resolve('state', 'pets.db'),
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, { kind: 'sqlite', path: ':memory:' })
  })

  it('DATABASE_URL: a SQLite path another program would read otherwise is refused, not taken as a file name', () => {
    const plainPath =
      'file:PATH or sqlite:PATH takes a plain path; SQLite URI parameters (?mode=ro, ?cache=shared) are not read, ' +
      'and a ? or # would become part of the file name'
    assert.equal(
      configError({ DATABASE_URL: 'file:/var/lib/petstore/pets.db?mode=ro' }).message,
      `DATABASE_URL="file:/var/lib/petstore/pets.db?mode=ro" is not valid: ${plainPath}`,
    )
    assert.equal(
      configError({ DATABASE_URL: 'sqlite::memory:?cache=shared' }).message,
      `DATABASE_URL="sqlite::memory:?cache=shared" is not valid: ${plainPath}`,
    )
    assert.equal(
      configError({ DATABASE_URL: 'file:~/petstore.db' }).message,
      'DATABASE_URL="file:~/petstore.db" is not valid: file:PATH or sqlite:PATH takes a path from / or from the ' +
        'current directory; ~ is not expanded to the home directory',
    )
    for (const value of ['file:data/', 'sqlite:/var/lib/petstore/', 'file:data/.', 'file:/var/lib/petstore/..'])
      assert.equal(
        configError({ DATABASE_URL: value }).message,
        `DATABASE_URL="${value}" is not valid: file:PATH or sqlite:PATH names the database file; a path ending in /, ` +
          '/. or /.. names a directory',
      )
    // A ~ inside a path, or leading a name, is an ordinary character of it.
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:/srv/~petstore/pets.db' }).database, {
      kind: 'sqlite',
      path: '/srv/~petstore/pets.db',
    })
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:~pets.db' }).database, {
      kind: 'sqlite',
      path: resolve('~pets.db'),
    })
    // So is a dot leading a name.
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:data/.pets.db' }).database, {
      kind: 'sqlite',
      path: resolve('data/.pets.db'),
    })
  })

  it('DATABASE_URL: postgres:// and postgresql:// select PostgreSQL, kept verbatim', () => {
    for (const url of [
      'postgres://petstore:secret@db.internal:5432/petstore',
      'postgresql://localhost/petstore?sslmode=require',
      'postgres://petstore@/petstore?host=/var/run/postgresql',
    ]) {
      assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, { kind: 'postgres', url })
    }
  })

  it('DATABASE_URL: a postgres:// URL the driver could not read is refused naming the variable, never the password', () => {
    for (const [url, shown] of [
      ['postgres://u:pw@h/db%', 'postgres://u:***@h/db%'],
      ['postgres://u:pw@127.0.0.1:99999/db', 'postgres://u:***@127.0.0.1:99999/db'],
      ['postgres://u:pw@127.0.0.1:abc/db', 'postgres://u:***@127.0.0.1:abc/db'],
      ['postgres://u%zz:pw@h/db', 'postgres://u%zz:***@h/db'],
    ]) {
      assert.throws(() => loadConfig({ DATABASE_URL: url }), {
        name: 'ConfigError',
        message:
          `DATABASE_URL=${JSON.stringify(shown)} is not valid: a well-formed postgres:// URL: a port from 1 to ` +
          '65535, and % only as in %XX',
      })
    }
  })

  it('PETSTORE_API_KEYS: comma-separated, trimmed, deduplicated, any visible characters but the comma', () => {
    assert.deepEqual(loadConfig({ PETSTORE_API_KEYS: 'first-key-0123456789' }).staticApiKeys, ['first-key-0123456789'])
    assert.deepEqual(
      loadConfig({ PETSTORE_API_KEYS: ' first-key-0123456789 , second!key#with$symbols ,first-key-0123456789' })
        .staticApiKeys,
      ['first-key-0123456789', 'second!key#with$symbols'],
    )
    assert.deepEqual(loadConfig({ PETSTORE_API_KEYS: '   ' }).staticApiKeys, [])
  })

  it('PRODUCTION_BASE_URL and STAGING_BASE_URL: https base addresses ending in /v1, normalised', () => {
    assert.equal(
      loadConfig({ PRODUCTION_BASE_URL: 'https://petstore.example.com/v1' }).productionBaseUrl,
      'https://petstore.example.com/v1',
    )
    assert.equal(
      loadConfig({ PRODUCTION_BASE_URL: 'https://Petstore.Example.com:443/v1/' }).productionBaseUrl,
      'https://petstore.example.com/v1',
    )
    assert.equal(
      loadConfig({ STAGING_BASE_URL: 'https://gateway.example.com/petstore-staging/v1' }).stagingBaseUrl,
      'https://gateway.example.com/petstore-staging/v1',
    )
  })

  it('PUBLIC_BASE_URL: an http(s) origin, normalised', () => {
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://petstore.example.com' }).publicBaseUrl,
      'https://petstore.example.com',
    )
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://Petstore.Example.com/' }).publicBaseUrl,
      'https://petstore.example.com',
    )
    assert.equal(loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' }).publicBaseUrl, 'http://localhost:8080')
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://petstore.example.com:443' }).publicBaseUrl,
      'https://petstore.example.com',
    )
  })

  it('LOG_LEVEL: every pino level', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
      assert.equal(loadConfig({ LOG_LEVEL: level }).logLevel, level)
    }
  })

  it('RATE_LIMIT_PER_KEY, RATE_LIMIT_ANONYMOUS (1 to 10^9), RATE_LIMIT_WINDOW_SECONDS (1 to 86400), \
RATE_LIMIT_NAMESPACE', () => {
    const config = loadConfig({
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_ANONYMOUS: '1',
      RATE_LIMIT_WINDOW_SECONDS: '86400',
      RATE_LIMIT_NAMESPACE: 'staging:limits_v2.1-a',
    })
    assert.deepEqual(
      [config.rateLimitPerKey, config.rateLimitAnonymous, config.rateLimitWindowSeconds, config.rateLimitNamespace],
      [1_000_000_000, 1, 86_400, 'staging:limits_v2.1-a'],
    )
  })

  it('TRUST_PROXY: off, a hop count, or addresses, CIDR ranges and the named private ranges', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false)
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
    assert.equal(loadConfig({ TRUST_PROXY: '9' }).trustProxy, 9)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy, ['127.0.0.1'])
    assert.deepEqual(
      loadConfig({
        TRUST_PROXY:
          '10.0.0.0/8, 192.168.1.7 ,::1,fd00::/8,fc00::/7,loopback,uniquelocal,linklocal,::ffff:10.0.0.0/104',
      }).trustProxy,
      [
        '10.0.0.0/8',
        '192.168.1.7',
        '::1',
        'fd00::/8',
        'fc00::/7',
        'loopback',
        'uniquelocal',
        'linklocal',
        '::ffff:10.0.0.0/104',
      ],
    )
  })

  it('REDIS_URL: redis:// and rediss://', () => {
    assert.equal(loadConfig({ REDIS_URL: 'redis://localhost:6379' }).redisUrl, 'redis://localhost:6379')
    assert.equal(loadConfig({ REDIS_URL: 'rediss://cache.internal:6380/0' }).redisUrl, 'rediss://cache.internal:6380/0')
  })
})

describe('loadConfig refuses invalid values with a ConfigError naming the variable', () => {
  const invalid: [variable: string, value: string][] = [
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['PORT', '080'],
    ['PORT', ' 80'],
    ['PORT', '1e3'],
    ['HOST', 'bad host'],
    ['HOST', 'host/path'],
    ['HOST', '256.1.1.1'],
    ['HOST', '1.2.3'],
    ['HOST', '127.0.0.01'],
    ['HOST', '0.0.0.0:8080'],
    ['HOST', 'localhost:8080'],
    ['HOST', '[::1]'],
    ['HOST', '[::1]:8080'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'file:'],
    ['DATABASE_URL', 'sqlite:'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'data/petstore.db'],
    ['DATABASE_URL', 'sqlite://data/petstore.db'],
    ['DATABASE_URL', 'file:data/petstore.db?mode=ro'],
    ['DATABASE_URL', 'sqlite:///var/lib/petstore/pets.db#main'],
    ['DATABASE_URL', 'file:~/petstore.db'],
    ['DATABASE_URL', 'file:data/'],
    ['PETSTORE_API_KEYS', 'short'],
    ['PETSTORE_API_KEYS', 'valid-key-0123456789,'],
    ['PETSTORE_API_KEYS', 'key with spaces 0123456789'],
    ['PETSTORE_API_KEYS', 'clé-non-ascii-0123456789'],
    ['PUBLIC_BASE_URL', 'https://petstore.example.com/v1'],
    ['PUBLIC_BASE_URL', 'https://petstore.example.com/?region=eu'],
    ['PUBLIC_BASE_URL', 'https://petstore.example.com/#top'],
    ['PUBLIC_BASE_URL', 'https://user:password@petstore.example.com'],
    ['PUBLIC_BASE_URL', 'ftp://petstore.example.com'],
    ['PUBLIC_BASE_URL', 'petstore.example.com'],
    ['PRODUCTION_BASE_URL', 'https://petstore.example.com'],
    ['PRODUCTION_BASE_URL', 'http://petstore.example.com/v1'],
    ['PRODUCTION_BASE_URL', 'https://petstore.example.com/v1?x=1'],
    ['PRODUCTION_BASE_URL', 'https://user:secret@petstore.example.com/v1'],
    ['STAGING_BASE_URL', 'https://staging.petstore.example.com/v2'],
    ['STAGING_BASE_URL', 'staging.petstore.example.com/v1'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'INFO'],
    ['REDIS_URL', 'http://cache.internal:6379'],
    ['REDIS_URL', 'redis://127.0.0.1:notaport'],
    ['REDIS_URL', 'redis://127.0.0.1:99999'],
    ['REDIS_URL', 'redis://[::1'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '10.5'],
    ['DATABASE_POOL_SIZE', '1001'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '99'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '1e3'],
    ['MIGRATE_ON_START', 'yes'],
    ['RATE_LIMIT_PER_KEY', '0'],
    ['RATE_LIMIT_PER_KEY', '1000000001'],
    ['RATE_LIMIT_PER_KEY', '1e3'],
    ['RATE_LIMIT_ANONYMOUS', '0'],
    ['RATE_LIMIT_ANONYMOUS', '-1'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_WINDOW_SECONDS', '86401'],
    ['RATE_LIMIT_WINDOW_SECONDS', '1.5'],
    ['RATE_LIMIT_NAMESPACE', 'has space'],
    ['RATE_LIMIT_NAMESPACE', 'x'.repeat(65)],
    ['RATE_LIMIT_NAMESPACE', 'star*'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '0'],
    ['TRUST_PROXY', '10'],
    ['TRUST_PROXY', 'nginx'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '::1/129'],
    ['TRUST_PROXY', '10.0.0.256'],
    ['TRUST_PROXY', '10.0.0.0/8/8'],
    ['TRUST_PROXY', '127.0.0.1,'],
    ['TRUST_PROXY', '10.0.0.0/08'],
    // Wider than any private range: together, two /1 ranges trust every peer.
    ['TRUST_PROXY', '0.0.0.0/0'],
    ['TRUST_PROXY', '::/0'],
    ['TRUST_PROXY', '0.0.0.0/1,128.0.0.0/1'],
    ['TRUST_PROXY', '10.0.0.0/7'],
    ['TRUST_PROXY', '::/6'],
    ['TRUST_PROXY', '::ffff:0.0.0.0/96'],
    // The same range in the other spellings the proxy check reads as it.
    ['TRUST_PROXY', '::ffff:0:0/96'],
    ['TRUST_PROXY', '::FFFF:0000:0000/96'],
    ['TRUST_PROXY', '0:0:0:0:0:ffff:0.0.0.0/96'],
    ['TRUST_PROXY', '0::ffff:0.0.0.0/96'],
    ['TRUST_PROXY', '::0.0.0.0/96'],
    ['TRUST_PROXY', '::/7'],
    ['IDEMPOTENCY_KEY_TTL_HOURS', '0'],
    ['IDEMPOTENCY_KEY_TTL_HOURS', '8761'],
    ['IDEMPOTENCY_KEY_TTL_HOURS', '1.5'],
    ['METRICS_TOKEN', 'short-token'],
    ['METRICS_TOKEN', 'token with spaces 0123456789'],
    ['EVENT_RETENTION_DAYS', '0'],
    ['EVENT_RETENTION_DAYS', '1.5'],
    ['EVENT_STREAMS_PER_KEY', '0'],
    ['WEBHOOK_SECRET_KEY', 'too-short'],
    ['WEBHOOK_SECRET_KEY', 'ab'.repeat(31)],
    ['WEBHOOK_SECRET_KEY', Buffer.alloc(31).toString('base64')],
    ['WEBHOOK_SECRET_KEY', '0'.repeat(64)],
    ['WEBHOOK_SECRET_KEY', 'ab'.repeat(32)],
    ['WEBHOOK_SECRET_KEY', Buffer.alloc(32, 7).toString('base64')],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_RETRY_SCHEDULE', '1s,,2s'],
    ['WEBHOOK_RETRY_SCHEDULE', '5'],
    ['WEBHOOK_RETRY_SCHEDULE', '1.5s'],
    ['WEBHOOK_RETRY_SCHEDULE', '0s'],
    ['WEBHOOK_RETRY_SCHEDULE', '8d'],
    ['WEBHOOK_RETRY_SCHEDULE', Array(21).fill('1s').join(',')],
    ['WEBHOOK_DELIVERY_RETENTION_DAYS', '0'],
  ]

  for (const [variable, value] of invalid) {
    it(`${variable}=${JSON.stringify(value)}`, () => {
      const error = configError({ [variable]: value })
      assert.equal(error.variable, variable)
      assert.ok(error.message.startsWith(variable), `message does not start with ${variable}: ${error.message}`)
      assert.ok(!error.message.includes('\n'), `message spans lines: ${error.message}`)
    })
  }

  it('says what is allowed, with the value when it is not a secret', () => {
    assert.equal(configError({ PORT: 'abc' }).message, 'PORT="abc" is not valid: an integer from 0 to 65535')
    assert.equal(
      configError({ LOG_LEVEL: 'loud' }).message,
      'LOG_LEVEL="loud" is not valid: one of fatal, error, warn, info, debug, trace, silent',
    )
    assert.equal(
      configError({ DATABASE_URL: 'mysql://x' }).message,
      'DATABASE_URL="mysql://x" is not valid: file:PATH or sqlite:PATH (SQLite), or postgres://… / ' +
        'postgresql://… (PostgreSQL)',
    )
    assert.equal(
      configError({ PUBLIC_BASE_URL: 'https://petstore.example.com/v1' }).message,
      'PUBLIC_BASE_URL="https://petstore.example.com/v1" is not valid: an http(s) origin such as ' +
        'https://petstore.example.com (no path, query or credentials)',
    )
  })

  it('says that a HOST made of digits and dots must be an IPv4 address, rather than looking it up as a name', () => {
    assert.equal(
      configError({ HOST: '256.1.1.1' }).message,
      'HOST="256.1.1.1" is not valid: a host name or IP address; as an IPv4 address it needs four numbers from 0 ' +
        'to 255 (127.0.0.1, 0.0.0.0 for every interface)',
    )
  })

  it('says that a HOST holds no port, and an IPv6 HOST no brackets, rather than looking them up as names', () => {
    assert.equal(
      configError({ HOST: '0.0.0.0:8080' }).message,
      'HOST="0.0.0.0:8080" is not valid: a host name or IP address; without a port (the port is PORT): 0.0.0.0 ' +
        'for every interface, or :: for IPv6',
    )
    assert.equal(
      configError({ HOST: '[::1]' }).message,
      'HOST="[::1]" is not valid: a host name or IP address; an IPv6 address is written without brackets (::1)',
    )
    // Colons in an IPv6 address are still an address: ::1:4397 is one, not ::1 with a port.
    assert.equal(loadConfig({ HOST: '::1:4397' }).host, '::1:4397')
  })

  it('says that a WEBHOOK_SECRET_KEY of one byte repeated is a placeholder, without quoting it', () => {
    assert.equal(
      configError({ WEBHOOK_SECRET_KEY: '0'.repeat(64) }).message,
      'WEBHOOK_SECRET_KEY is not valid: 32 random bytes as 64 hexadecimal characters or as base64 (e.g. the output ' +
        'of: openssl rand -hex 32); the value given repeats one byte, a placeholder rather than a key',
    )
  })

  it('says every value a switch takes', () => {
    assert.equal(
      configError({ MIGRATE_ON_START: 'yes' }).message,
      'MIGRATE_ON_START="yes" is not valid: true or false (also 1 or 0)',
    )
  })

  it('says what TRUST_PROXY and RATE_LIMIT_PER_KEY take', () => {
    assert.equal(
      configError({ TRUST_PROXY: 'true' }).message,
      'TRUST_PROXY="true" is not valid: false, a hop count from 1 to 9, or comma-separated proxy addresses and ' +
        'CIDR ranges no wider than /8 (IPv6: /7) (e.g. 127.0.0.1,10.0.0.0/8; loopback, linklocal and uniquelocal ' +
        'name the private ranges)',
    )
    assert.equal(
      configError({ RATE_LIMIT_PER_KEY: '0' }).message,
      'RATE_LIMIT_PER_KEY="0" is not valid: an integer from 1 to 1000000000',
    )
  })

  it('never echoes an API key, valid or not, and says which one is wrong', () => {
    const good = 'good-secret-key-0123456789'
    const bad = 'tiny-secret'
    const error = configError({ PETSTORE_API_KEYS: `${good},${bad}` })
    assert.equal(
      error.message,
      'PETSTORE_API_KEYS is not valid: key 2 of 2 is 11 characters long; expected comma-separated keys, each at ' +
        'least 16 visible ASCII characters without white space',
    )
    const spaced = configError({ PETSTORE_API_KEYS: 'secret with spaces 0123456789' })
    assert.equal(
      spaced.message,
      'PETSTORE_API_KEYS is not valid: key 1 of 1 contains white space or a character outside visible ASCII; ' +
        'expected comma-separated keys, each at least 16 visible ASCII characters without white space',
    )
    for (const message of [error.message, spaced.message]) {
      assert.ok(!message.includes('secret'), message)
    }
  })

  it('never echoes METRICS_TOKEN, and accepts 16 visible ASCII characters or more', () => {
    assert.equal(loadConfig({ METRICS_TOKEN: 'metrics-token-0123456789' }).metricsToken, 'metrics-token-0123456789')
    assert.equal(
      configError({ METRICS_TOKEN: 'tiny-secret' }).message,
      'METRICS_TOKEN is not valid: it is 11 characters long; expected at least 16 visible ASCII characters ' +
        'without white space',
    )
    assert.equal(
      configError({ METRICS_TOKEN: 'secret with spaces 0123456789' }).message,
      'METRICS_TOKEN is not valid: it contains white space or a character outside visible ASCII; expected at ' +
        'least 16 visible ASCII characters without white space',
    )
  })

  it('never echoes a password from a rejected URL', () => {
    assert.equal(
      configError({ DATABASE_URL: 'mysql://admin:hunter2hunter2@db.internal/petstore' }).message,
      'DATABASE_URL="mysql://admin:***@db.internal/petstore" is not valid: file:PATH or sqlite:PATH (SQLite), or ' +
        'postgres://… / postgresql://… (PostgreSQL)',
    )
    // An unencoded @ in the password must not let part of it through.
    assert.ok(
      configError({ DATABASE_URL: 'mysql://admin:hun@ter2@db.internal/petstore' }).message.startsWith(
        'DATABASE_URL="mysql://admin:***@db.internal/petstore"',
      ),
    )
    assert.ok(!configError({ REDIS_URL: 'http://:hunter2hunter2@cache.internal' }).message.includes('hunter2'))
    // A typo in the scheme or a stray character before it must not show the password either.
    for (const [variable, value, shown] of [
      ['DATABASE_URL', 'postgres//u:hunter2hunter2@h/db', 'postgres//u:***@h/db'],
      ['DATABASE_URL', ' postgres://u:hunter2hunter2@h/db', ' postgres://u:***@h/db'],
      ['DATABASE_URL', 'postgres:/u:hunter2hunter2@h/db', 'postgres:/u:***@h/db'],
      ['DATABASE_URL', 'postgres:u:hunter2hunter2@h/db', 'postgres:***@h/db'],
      ['DATABASE_URL', 'u:hunter2hunter2@h/db', 'u:***@h/db'],
      ['DATABASE_URL', 'mysql://admin:hun/ter2hunter2@db.internal', 'mysql://admin:***@db.internal'],
      ['REDIS_URL', 'redis//u:hunter2hunter2@h', 'redis//u:***@h'],
      ['REDIS_URL', 'redis://u:hunter2hunter2@exa mple.com', 'redis://u:***@exa mple.com'],
      // A password that is not percent-encoded: the URL is refused for it (a port of q7), and must not show it.
      [
        'DATABASE_URL',
        'postgres://app:hu//nter2+9kLm@db.internal:5432/petstore',
        'postgres://app:***@db.internal:5432/petstore',
      ],
      ['REDIS_URL', 'redis://:hu//nter2+9kLm@cache:6379', 'redis://:***@cache:6379'],
      ['DATABASE_URL', 'postgres//u:hunter2@hunter2/zz@h/db', 'postgres//u:***@h/db'],
      ['DATABASE_URL', 'u:hun/ter2@h', 'u:***@h'],
      [
        'DATABASE_URL',
        'postgres://h:99999/db?user=u&password=hunter2&x=1',
        'postgres://h:99999/db?user=u&password=***&x=1',
      ],
    ] as const)
      assert.ok(
        configError({ [variable]: value }).message.startsWith(`${variable}=${JSON.stringify(shown)} is not valid: `),
        `${variable}=${value}`,
      )
    assert.ok(
      !configError({ PUBLIC_BASE_URL: 'https://user:hunter2hunter2@petstore.example.com' }).message.includes('hunter2'),
    )
  })

  it('reports one variable, the first in declaration order, when several are wrong', () => {
    const error = configError({ PORT: 'abc', LOG_LEVEL: 'loud' })
    assert.equal(error.variable, 'PORT')
  })
})

describe('findMisspeltVariables: set variables whose name is a near miss of one the service reads', () => {
  it('names the variable it probably meant: a typo, a transposition, a lost or extra S, the wrong case', () => {
    assert.deepEqual(
      findMisspeltVariables({
        DATABSE_URL: 'postgres://u@db/petstore',
        PETSTORE_API_KEY: 'x',
        PROT: '8080',
        database_url: 'file:x.db',
        LOG_LEVELS: 'debug',
        RATE_LIMT_PER_KEY: '5',
        REDIS_URI: 'redis://x',
      }),
      [
        { name: 'DATABSE_URL', meant: 'DATABASE_URL' },
        { name: 'LOG_LEVELS', meant: 'LOG_LEVEL' },
        { name: 'PETSTORE_API_KEY', meant: 'PETSTORE_API_KEYS' },
        { name: 'PROT', meant: 'PORT' },
        { name: 'RATE_LIMT_PER_KEY', meant: 'RATE_LIMIT_PER_KEY' },
        { name: 'REDIS_URI', meant: 'REDIS_URL' },
        { name: 'database_url', meant: 'DATABASE_URL' },
      ],
    )
  })

  it('is silent about the variables it reads and the usual ones of a shell, npm, CI or PostgreSQL clients', () => {
    const env: Record<string, string> = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, '']))
    for (const name of [
      'HOME',
      'PATH',
      'PWD',
      'OLDPWD',
      'USER',
      'SHELL',
      'TERM',
      'LANG',
      'HOSTNAME',
      'HOSTTYPE',
      'LOGNAME',
      'NODE',
      'NODE_ENV',
      'NODE_OPTIONS',
      'COLOR',
      'EDITOR',
      'INIT_CWD',
      'CI',
      'PGHOST',
      'PGPORT',
      'PGUSER',
      'PGDATABASE',
      'PGPASSWORD',
      'HTTP_PROXY',
      'NO_PROXY',
      'TEST_DATABASE_URL',
      'PETSTORE_TEST_STORE',
      'PETSTORE_TEST_CLI',
      'npm_config_port',
      'npm_lifecycle_event',
      'TZ',
      'TMPDIR',
    ]) {
      env[name] = 'x'
    }
    assert.deepEqual(findMisspeltVariables(env), [])
  })

  it('ignores variables that are not set', () => {
    assert.deepEqual(findMisspeltVariables({ DATABSE_URL: undefined }), [])
  })
})

describe('findRetiredVariables: set variables that earlier versions read', () => {
  it('names each with the value it is fixed at now, and leaves them out of the near misses', () => {
    const env = { WEBHOOK_LEASE_MS: '7000', EVENT_HEARTBEAT_SECONDS: '1', WEBHOOK_CONCURRENCY: '2', PORT: '80' }
    assert.deepEqual(findRetiredVariables(env), [
      { name: 'EVENT_HEARTBEAT_SECONDS', now: '15 s' },
      { name: 'WEBHOOK_LEASE_MS', now: '6 × the attempt time-out (60 s)' },
      { name: 'WEBHOOK_CONCURRENCY', now: '64 per instance' },
    ])
    assert.deepEqual(findMisspeltVariables(env), [])
    assert.deepEqual(loadConfig(env), loadConfig({ PORT: '80' }))
  })

  it('is silent when none is set', () => {
    assert.deepEqual(findRetiredVariables({ PORT: '80', WEBHOOK_LEASE_MS: undefined }), [])
  })
})

describe('the configuration table', () => {
  it('holds at most 25 variables, none of them retired', () => {
    assert.equal(CONFIG_VARIABLES.length, 25)
    assert.deepEqual(findRetiredVariables(Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, 'x']))), [])
  })
})
