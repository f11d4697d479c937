// Where the service's CPU time went: top self-time functions, and self time by package, from the
// .cpuprofile that `node --cpu-prof` writes when the process exits. Also a command:
//   tsx bench/cpu-profile.ts DIR_OR_FILE [TOP]
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { markdownTable } from './report.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

function newestProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(path, name))
  const newest = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  if (!newest) throw new Error(`no .cpuprofile in ${path}`)
  return newest
}

function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:')) return 'node (core)'
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (modules?.[1]) return modules[1]
  if (url.includes('/dist/')) return 'service (dist/)'
  return url
}

function shortLocation(url: string, line: number): string {
  if (url === '') return ''
  const trimmed = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(dist\/)/, '$1')
  return `${trimmed}:${line + 1}`
}

export function summariseProfile(path: string, top = 25): string {
  const file = newestProfile(path)
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfByFunction = new Map<string, number>()
  const selfByPackage = new Map<string, number>()
  let total = 0
  let idle = 0
  profile.samples.forEach((nodeId, index) => {
    const node = byNode.get(nodeId)
    const micros = profile.timeDeltas[index] ?? 0
    if (!node) return
    total += micros
    const { functionName, url, lineNumber } = node.callFrame
    if (functionName === '(idle)') {
      idle += micros
      return
    }
    const key = `${functionName || '(anonymous)'}  ${shortLocation(url, lineNumber)}`
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + micros)
    const owner = packageOf(url, functionName)
    selfByPackage.set(owner, (selfByPackage.get(owner) ?? 0) + micros)
  })
  const busy = total - idle
  const rows = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => [name, (micros / 1000).toFixed(0), ((micros / busy) * 100).toFixed(1)])
  return [
    `CPU profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${((idle / total) * 100).toFixed(0)} % idle; ` +
      'shares are of the busy time',
    '',
    markdownTable(['self time by package', 'ms', '%'], rows(selfByPackage, 15)),
    '',
    markdownTable(['top self-time functions', 'ms', '%'], rows(selfByFunction, top)),
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [path, top] = process.argv.slice(2)
  if (!path) throw new Error('usage: tsx bench/cpu-profile.ts DIR_OR_FILE [TOP]')
  console.log(summariseProfile(path, top ? Number(top) : undefined))
}
