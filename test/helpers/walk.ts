// A page's walk through the API is a script: its shell blocks (each preceded by `<!-- walk -->`) are run in
// order, in one bash, against a real server on a fresh database, exactly as a reader pastes them. The status,
// body and header lines the page shows in comments are what the commands must print.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'

// Where the pages' examples say the server is (npm start's default); the test server's own URL replaces it.
const DOCUMENTED_BASE_URL = 'http://127.0.0.1:8080'

/** The ```sh blocks that follow a `<!-- walk -->` line, in document order. */
export function walkBlocks(markdown: string): string[] {
  const blocks: string[] = []
  const pattern = /^<!-- walk -->\n```sh\n([\s\S]*?)^```$/gm
  for (const match of markdown.matchAll(pattern)) blocks.push(match[1] ?? '')
  return blocks
}

export interface Expected {
  /** Status lines (`HTTP/1.1 201 Created`), in order. */
  statuses: string[]
  /** Body and header lines shown without an ellipsis, in order. */
  lines: string[]
}

/** What the comments of the walk say the commands print. */
export function expectedOutput(script: string, baseUrl: string): Expected {
  const expected: Expected = { statuses: [], lines: [] }
  for (const line of script.split('\n')) {
    const shown = /^# (.*)$/.exec(line)?.[1]
    if (shown === undefined || shown.includes('…')) continue
    if (/^HTTP\/1\.1 \d{3} /.test(shown)) expected.statuses.push(shown)
    // A body, or a header (`name: value`, the name in lower case as the service sends it); prose comments
    // start with a capital or have spaces before their colon.
    else if (/^[[{]/.test(shown) || /^[a-z][a-z0-9-]*: /.test(shown))
      expected.lines.push(shown.replaceAll(DOCUMENTED_BASE_URL, baseUrl))
  }
  return expected
}

export async function runWalk(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  // One stream for standard output and error, as a terminal shows them: `tee /dev/stderr` prints there.
  const child = spawn('bash', ['-c', `exec 2>&1\nset -euo pipefail\n${script}`], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, output: output.replaceAll('\r', '') }
}

/**
 * Asserts that `output` has exactly the status lines the page shows, in order, and every body and header line it
 * shows, in order. Returns what the page shows, for the caller to check how much that is.
 */
export function assertPrintedAsShown(page: string, script: string, output: string, baseUrl: string): Expected {
  const expected = expectedOutput(script, baseUrl)
  const lines = output.split('\n')
  assert.deepEqual(
    lines.filter((line) => /^HTTP\/1\.1 \d{3} /.test(line)),
    expected.statuses,
    output,
  )
  let from = 0
  for (const line of expected.lines) {
    const at = lines.indexOf(line, from)
    assert.ok(
      at >= 0,
      `${page} shows ${JSON.stringify(line)}, which the walk did not print (after line ${from}):\n${output}`,
    )
    from = at + 1
  }
  return expected
}
