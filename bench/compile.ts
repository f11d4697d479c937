// The bench's own servers run as plain JavaScript under plain node: started through the tsx loader they
// would carry its ~40 MiB (and its loader thread), which would distort the RSS column and flatter nothing.
// They are transpiled (types removed, nothing bundled) next to node_modules, so that their imports of
// fastify and better-sqlite3 resolve, into a directory private to this run and removed with it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { ROOT, registerTempDirectory } from './processes.js'

const SERVER_SOURCES = [
  'baseline-server.ts',
  'framework-server.ts',
  'minimal-server.ts',
  'reference-server.ts',
  'reference-postgres-server.ts',
  'pets-data.ts',
  'contract-headers.ts',
  'webhook-receiver.ts',
]

/** Returns the directory holding the compiled servers (`baseline-server.js`, `reference-server.js`, …). */
export function compileBenchServers(): string {
  const cache = join(ROOT, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  const directory = mkdtempSync(join(cache, 'petstore-bench-'))
  registerTempDirectory(directory)
  writeFileSync(join(directory, 'package.json'), '{ "type": "module" }\n')
  for (const file of SERVER_SOURCES) {
    const { outputText } = ts.transpileModule(readFileSync(join(ROOT, 'bench', file), 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    })
    writeFileSync(join(directory, file.replace(/\.ts$/, '.js')), outputText)
  }
  return directory
}
