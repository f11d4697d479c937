import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The petstore command that the process tests start: the TypeScript sources, or the file PETSTORE_TEST_CLI
 * names. npm test names the production bundle (dist/bundle/cli.js) in a pass of its own, so that the
 * artefact npm start and the Docker image run is tested as such.
 */
export const CLI = process.env.PETSTORE_TEST_CLI
  ? resolve(process.env.PETSTORE_TEST_CLI)
  : fileURLToPath(new URL('../../src/cli.ts', import.meta.url))
