import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The petstore command that the process tests start: the file PETSTORE_TEST_CLI names, or else the TypeScript
 * sources. npm test builds and names the production bundle (dist/bundle/cli.js) in every pass, so that the
 * artefact npm start and the Docker image run is what these tests start (and no process pays for compiling the
 * sources as it starts); a test file run alone with node --test starts the sources.
 */
export const CLI = process.env.PETSTORE_TEST_CLI
  ? resolve(process.env.PETSTORE_TEST_CLI)
  : fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

// Resolved from here, so that the command also starts in a working directory without node_modules.
const TSX = import.meta.resolve('tsx')

/** Node's arguments to run `petstore ARGS`: the bundle as it is, the sources through tsx. */
export const cliArguments = (args: readonly string[]): string[] => [
  ...(CLI.endsWith('.ts') ? ['--import', TSX] : []),
  CLI,
  ...args,
]
