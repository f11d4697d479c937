// The browser of the browser tests: Debian's Chromium, or the binary PETSTORE_TEST_CHROMIUM names (or a missing
// one, to see the skip reported). Without it a test is skipped with the reason, except under CI, where a
// missing browser fails: the browser tests may not be skipped there.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { it } from 'node:test'
import { chromium, type Browser } from 'playwright-core'

const CHROMIUM = process.env.PETSTORE_TEST_CHROMIUM ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * Why the browser test about `subject` must be skipped, or undefined when Chromium is there. Under CI a missing
 * Chromium also registers a failing test, named after `subject`.
 */
export function missingChromium(subject: string): string | undefined {
  if (existsSync(CHROMIUM)) return undefined
  const reason = `${CHROMIUM} not found: the ${subject} browser test needs Debian's Chromium (apt-get install chromium)`
  if (process.env.CI) {
    it(`has Chromium for the ${subject} browser test (required when CI is set)`, () => {
      assert.fail(`CI is set and ${reason}`)
    })
  }
  return reason
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
