// The production build of the service: the compiled dist/cli/main.js and everything it imports, in one minified
// ES module (plus a chunk per lazily loaded part: PostgreSQL, Redis). A process then keeps far less
// JavaScript source and bytecode in memory than with 1,300 separate files from node_modules (about 13 MiB
// less RSS; see docs/benchmarks.md). npm start and the Docker image run it; tests run the sources.
import { rmSync } from 'node:fs'
import { build } from 'esbuild'

// Chunk names change with their contents: the chunks of an earlier build must not linger beside the new ones.
rmSync('dist/bundle', { recursive: true, force: true })
await build({
  // The webhook sender runs as a thread of its own, from a file of its own next to the chunks
  // (webhooks/delivery/sender.ts).
  // The command keeps its name, dist/bundle/cli.js (package.json's bin, npm start, the Docker image).
  entryPoints: { cli: 'dist/cli/main.js', 'sender-thread': 'dist/webhooks/delivery/sender-thread.js' },
  entryNames: '[name]',
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: identifiers keep their names, which appear in logs (an error's type), stacks
  // and Fastify's plugin names. (esbuild's keepNames would do that for renamed identifiers too, but by
  // wrapping every function it creates, which cost about 15 % of the throughput of a cached read here.)
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // A native addon, and a package that serves its own files from its directory: both stay in node_modules.
  external: ['better-sqlite3', '@fastify/swagger-ui'],
  // CommonJS packages inside an ES module bundle still call require.
  banner: {
    js:
      "import { createRequire as __petstoreCreateRequire } from 'node:module'; const require = " +
      '__petstoreCreateRequire(import.meta.url);',
  },
  logLevel: 'warning',
})
