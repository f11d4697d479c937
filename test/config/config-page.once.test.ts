// The configuration table's other outputs: the help lines, the variables each command reads, the committed
// docs/configuration.md, and the tuning that tests set in code instead of variables.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { variableHelp, variablesReadBy } from '../../src/config/help-lines.js'
import { configurationPage } from '../../src/config/page.js'
import { DEFAULT_TUNING, tuningWith } from '../../src/config/tuning.js'
import { CONFIGURATION_PAGE, generateConfigurationPage } from '../../scripts/write-config-docs.js'

describe('help lines', () => {
  it('say what a variable sets and its default, when it has one', () => {
    assert.equal(
      variableHelp('DATABASE_POOL_SIZE'),
      'PostgreSQL connections for transactions, per process (serve opens six more); default 10',
    )
    assert.equal(
      variableHelp('METRICS_TOKEN'),
      'when set, GET /metrics requires Authorization: Bearer <token> (set it in production)',
    )
    assert.throws(() => variableHelp('WEBHOOK_LEASE_MS'), /WEBHOOK_LEASE_MS is not in the configuration table/)
  })

  it('list for each command the variables every command reads, and its own', () => {
    const database = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS']
    assert.deepEqual(variablesReadBy('migrate'), database)
    assert.deepEqual(variablesReadBy('keys create'), database)
    assert.equal(variablesReadBy('serve').length, 25)
  })
})

describe('docs/configuration.md', () => {
  it('is what the configuration table generates (npm run config:docs writes it)', () => {
    assert.equal(readFileSync(CONFIGURATION_PAGE, 'utf8'), generateConfigurationPage())
  })

  it('has a row per variable and per retired variable, with cells that cannot break the table', () => {
    const page = configurationPage('<!-- variables -->\n\n<!-- retired -->\n')
    const rows = page.split('\n').filter((line) => line.startsWith('| `'))
    assert.equal(rows.length, 25 + 14)
    assert.ok(
      rows.includes(
        '| `METRICS_TOKEN` | `serve` | unset | at least 16 visible ASCII characters without white space | ' +
          'when set, GET /metrics requires Authorization: Bearer &lt;token&gt; (set it in production) |',
      ),
      page,
    )
    assert.ok(
      rows.includes(
        '| `WEBHOOK_LEASE_MS` | 6 × the attempt time-out (60 s) | derived: it must outlast ' +
          "an attempt, and only sets how soon a crashed instance's deliveries are retried |",
      ),
      page,
    )
  })

  it('refuses a template without its markers, or with one twice', () => {
    assert.throws(() => configurationPage('<!-- variables -->'), /the template must hold <!-- retired --> exactly once/)
    assert.throws(
      () => configurationPage('<!-- variables --><!-- variables --><!-- retired -->'),
      /the template must hold <!-- variables --> exactly once/,
    )
  })
})

describe('tuning', () => {
  it('keeps the defaults unless a test gives its own', () => {
    assert.deepEqual(tuningWith(), DEFAULT_TUNING)
    assert.deepEqual(tuningWith({ webhookPollIntervalMs: 50 }), { ...DEFAULT_TUNING, webhookPollIntervalMs: 50 })
  })

  it("derives a delivery's lease from its attempt time-out, unless a lease is given", () => {
    assert.equal(DEFAULT_TUNING.webhookLeaseMs, 60_000)
    assert.equal(tuningWith({ webhookAttemptTimeoutMs: 5000 }).webhookLeaseMs, 30_000)
    assert.equal(tuningWith({ webhookAttemptTimeoutMs: 5000, webhookLeaseMs: 7000 }).webhookLeaseMs, 7000)
  })

  it('refuses a lease that could end while its attempt still runs', () => {
    assert.throws(
      () => tuningWith({ webhookAttemptTimeoutMs: 10_000, webhookLeaseMs: 11_000 }),
      /^RangeError: webhookLeaseMs must exceed webhookAttemptTimeoutMs \+ 1000 \(11000\)/,
    )
  })
})
