// How the service ships: `npm start` (package.json) is `node [flags…] SCRIPT serve`. The benchmark starts the
// service with exactly that script and those flags, so that the two can never drift apart.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ShippedCommand {
  /** Environment variables the start script sets (`env NAME=VALUE … node …`), e.g. glibc's arena limit. */
  env: Record<string, string>
  /** Node flags of the start script, e.g. the V8 heap limits. */
  nodeFlags: string[]
  /** The started script, absolute. */
  script: string
}

export function shippedCommand(root: string): ShippedCommand {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } }
  const start = scripts?.start ?? ''
  // `exec node …` (npm start replaces its shell with node, so signals reach the service) counts as `node …`.
  const match = /^(?:exec )?(?:env((?: [A-Z_]+=\S+)+) )?node((?: --[\w-]+(?:=\S+)?)*) (\S+\.js) serve$/.exec(start)
  if (!match?.[3])
    throw new Error(
      `package.json's start script is not "[env NAME=VALUE…] node [--flag…] SCRIPT.js serve": ${JSON.stringify(start)}`,
    )
  const env = Object.fromEntries(
    (match[1] ?? '')
      .split(' ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
  return { env, nodeFlags: (match[2] ?? '').split(' ').filter(Boolean), script: join(root, match[3]) }
}
