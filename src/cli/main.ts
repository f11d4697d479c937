#!/usr/bin/env node
// The petstore command: serve, migrate, manage API keys and look at webhooks. One line of output per action on
// stdout, so that it can be read by a script; the database used, warnings and errors go to stderr. Exit codes:
// 0 success, 1 failure, 2 usage error (with the usage on stderr).
import { SYNOPSIS, commandHelp, commandUsage, globalHelp, groupHelp, version } from './usage.js'
import {
  UsageError,
  deliveriesLimit,
  newKeyOptions,
  parseInvocation,
  positiveId,
  type Invocation,
} from './arguments.js'
import { keysCreate, keysList, keysRevoke, migrate, webhooksDeliveries, webhooksList } from './commands.js'
import { failOnUnwrittenOutput } from './output.js'
import { ConfigError, findMisspeltVariables, findRetiredVariables, loadConfig } from '../config.js'
import { describeDatabase, refuseDatabaseInMemory } from '../db/database-errors.js'

/**
 * A variable that is set but not read, and close to one that is: most likely a typo the operator would miss. Or
 * one that earlier versions read: its value is now ignored.
 */
function warnAboutMisspeltVariables(): void {
  for (const { name, meant } of findMisspeltVariables()) {
    console.error(`petstore: warning: ${name} is set but petstore does not read it; did you mean ${meant}?`)
  }
  for (const { name, now } of findRetiredVariables()) {
    console.error(`petstore: warning: ${name} is set but petstore no longer reads it; it is fixed at ${now}`)
  }
}

async function execute(invocation: Extract<Invocation, { kind: 'run' }>): Promise<void> {
  const { command, values, positionals } = invocation
  // Arguments are checked before the configuration: a usage error is reported as such whatever the environment.
  const newKey = command === 'keys create' ? newKeyOptions(values) : undefined
  const revokedId = command === 'keys revoke' ? positiveId(command, 'a key id', positionals[0]) : undefined
  const endpointId =
    command === 'webhooks deliveries' ? positiveId(command, 'an endpoint id', positionals[0]) : undefined
  const limit = command === 'webhooks deliveries' ? deliveriesLimit(values.limit) : undefined
  const config = loadConfig()
  if (command === 'serve') {
    warnAboutMisspeltVariables()
    // Loaded only to serve: without the HTTP stack, the key and migration commands start much faster.
    const { serve } = await import('../server.js')
    return serve(config)
  }
  if (command !== 'export' && command !== 'keys create') failOnUnwrittenOutput()
  // On stderr, so that stdout keeps only the command's own output (a new key, the list) for scripts.
  console.error(`petstore: using ${describeDatabase(config.database)}`)
  warnAboutMisspeltVariables()
  refuseDatabaseInMemory(command, config.database)
  if (command === 'migrate') return migrate(config)
  if (command === 'export' || command === 'import') {
    const { moveShop } = await import('../move/move-command.js')
    return moveShop(command, config, positionals[0] ?? '-')
  }
  if (newKey) return keysCreate(config, newKey)
  if (revokedId !== undefined) return keysRevoke(config, revokedId)
  if (endpointId !== undefined && limit !== undefined) return webhooksDeliveries(config, endpointId, limit)
  if (command === 'webhooks list') return webhooksList(config)
  return keysList(config)
}

async function main(): Promise<void> {
  try {
    const invocation = parseInvocation(process.argv.slice(2))
    // The help and the version are output a script may read (`petstore --version`), as a command's is.
    if (invocation.kind !== 'run') failOnUnwrittenOutput()
    if (invocation.kind === 'help') {
      const { command, group } = invocation
      console.log(command ? commandHelp(command) : group ? groupHelp(group) : globalHelp())
    } else if (invocation.kind === 'version') {
      console.log(`petstore ${version()}`)
    } else {
      await execute(invocation)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      const usage = error.command
        ? commandUsage(error.command)
        : `${SYNOPSIS}\nRun "petstore --help" for the environment variables.`
      console.error(`petstore: ${error.message}\n${usage}`)
      process.exitCode = 2
    } else if (error instanceof ConfigError) {
      console.error(`petstore: ${error.message}`)
      warnAboutMisspeltVariables()
      process.exitCode = 1
    } else {
      console.error(`petstore: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  }
}

await main()
