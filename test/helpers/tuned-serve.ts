// `petstore serve` for tests that start a server process with tuning of their own (shorter leases, faster
// polls): the same configuration and start as the command, with the tuning given as JSON in the first argument.
// Tuning is not configuration, so it is never read from the environment; this file is not part of the package.
import { loadConfig } from '../../src/config.js'
import type { Tuning } from '../../src/config/tuning.js'
import { serve } from '../../src/server.js'

const tuning = JSON.parse(process.argv[2] ?? '{}') as Partial<Tuning>
await serve(loadConfig(), tuning)
