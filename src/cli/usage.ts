// The petstore command's help: what each command does, its options, and the environment variables it reads.
import { readFileSync } from 'node:fs'
import { CONFIG_VARIABLES } from '../config.js'
import { variableHelp, variablesReadBy } from '../config/help-lines.js'
import { SCOPES } from '../keys/scopes.js'

export const COMMANDS = [
  'serve',
  'migrate',
  'keys create',
  'keys list',
  'keys revoke',
  'webhooks list',
  'webhooks deliveries',
  'export',
  'import',
] as const
export type Command = (typeof COMMANDS)[number]

interface CommandHelp {
  usage: string
  summary: string
  /** Flag → description, in the order shown. --help is added to every command. */
  options: [string, string][]
}

const DATABASE_LINE = 'The first line on stderr names the database used.'
const NO_NEW_DATABASE = 'It never creates a SQLite database: create one with petstore migrate (or npm start) first.'

const HELP: Record<Command, CommandHelp> = {
  serve: {
    usage: 'petstore serve',
    summary:
      'Run the API server: apply pending migrations (unless MIGRATE_ON_START=false), listen, and on the first ' +
      'start without any key print one key, once. Stops gracefully on SIGTERM or SIGINT. Logs are JSON lines on ' +
      'stdout; the start-up line names the address and the database.',
    options: [],
  },
  migrate: {
    usage: 'petstore migrate',
    summary: `Bring the database schema up to date, creating the SQLite database if there is none. ${DATABASE_LINE}`,
    options: [],
  },
  'keys create': {
    usage:
      'petstore keys create --name NAME [--scopes LIST] [--expires-in DURATION | --expires-at DATE-TIME] [--quiet]',
    summary:
      'Create an API key and print it, once, on stdout; only its SHA-256 is stored. Every scope and no expiry ' +
      `unless the options say otherwise. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [
      [
        '--name NAME',
        'a name for the key: 1 to 100 characters, no control or bidirectional override characters (required)',
      ],
      ['--scopes LIST', `comma-separated, from ${SCOPES.join(', ')}`],
      ['--expires-in DURATION', 'whole minutes, hours or days from now: 90m, 12h, 30d'],
      ['--expires-at DATE-TIME', 'an RFC 3339 date-time in the future: 2027-01-01T00:00:00Z'],
      ['--quiet', 'print the key alone, for a script to capture: KEY=$(petstore keys create --name ci --quiet)'],
    ],
  },
  'keys list': {
    usage: 'petstore keys list',
    summary:
      'List the stored keys, tab-separated on stdout: id, name, prefix, scopes, created, expires, last used, state; ' +
      `never the keys themselves. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
  },
  'keys revoke': {
    usage: 'petstore keys revoke ID',
    summary:
      'Revoke the key with this id (see keys list); it is refused from then on. ' +
      `${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
  },
  'webhooks list': {
    usage: 'petstore webhooks list',
    summary:
      'List the webhook endpoints, tab-separated on stdout: id, url, types, status, description, created, ' +
      `pending and failed deliveries; never their secrets. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
  },
  'webhooks deliveries': {
    usage: 'petstore webhooks deliveries ID [--limit N]',
    summary:
      'List the newest deliveries of the webhook endpoint with this id (see webhooks list), tab-separated on ' +
      'stdout: id, event, status, attempts, last outcome, last response status, next attempt, last error. ' +
      `${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [['--limit N', `how many deliveries, newest first: 1 to 1000 (default 20)`]],
  },
  export: {
    usage: 'petstore export FILE|-',
    summary:
      'Write the whole shop (pets, categories, orders, keys, events, webhooks and their secrets as stored, ' +
      'idempotency records, the cursor key) as one consistent snapshot to FILE, created with mode 0600 (an ' +
      'earlier export there is replaced; any other file is refused), or to stdout with -; the service may keep ' +
      'serving meanwhile. Progress goes to stderr when it is a terminal. ' +
      `${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
  },
  import: {
    usage: 'petstore import FILE|-',
    summary:
      'Load a file written by petstore export (or stdin with -) into an empty database of either store, ' +
      'migrating it first, in one transaction: ids, ETags, cursors, keys, events and webhook secrets continue as ' +
      'they were. Refused, with nothing changed, when the database already holds a shop, the file is damaged or ' +
      `newer, or its webhook secrets need another WEBHOOK_SECRET_KEY. ${DATABASE_LINE}`,
    options: [],
  },
}

function columns(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n')
}

function variableRows(names: readonly string[]): string {
  return columns(names.map((name) => [name, variableHelp(name)]))
}

const SYNOPSIS_ROWS: [string, string][] = [
  ['petstore serve', 'run the API server'],
  ['petstore migrate', 'bring the database schema up to date'],
  ['petstore keys create --name NAME', 'create an API key (printed once); options: petstore keys create --help'],
  ['petstore keys list', 'list keys (never the keys themselves)'],
  ['petstore keys revoke ID', 'revoke a key'],
  ['petstore webhooks list', 'list webhook endpoints, with pending and failed deliveries (never secrets)'],
  ['petstore webhooks deliveries ID', "an endpoint's newest deliveries and their last attempts"],
  ['petstore export FILE|-', 'write the whole shop to a file (mode 0600) or stdout'],
  ['petstore import FILE|-', 'load an exported shop into an empty database'],
  ['petstore COMMAND --help', "a command's options and the environment variables it reads"],
  ['petstore --version', 'the version'],
]

/** The list of commands: shown by --help, and after a usage error that names no known command. */
export const SYNOPSIS = `Usage:\n${columns(SYNOPSIS_ROWS)}`

/** `petstore keys --help`: the subcommands of one group, and where each one's options are. */
export function groupHelp(group: string): string {
  const rows = SYNOPSIS_ROWS.filter(([synopsis]) => synopsis.startsWith(`petstore ${group} `))
  const more = `Run "petstore ${group} SUBCOMMAND --help" for its options and environment variables.`
  return `Usage:\n${columns(rows)}\n\n${more}`
}

export function globalHelp(): string {
  return `${SYNOPSIS}

Environment variables (each command checks all of them; an invalid value stops it with exit code 1):
${variableRows(CONFIG_VARIABLES)}

Exit codes: 0 success, 1 failure, 2 usage error.`
}

/** Shown after a usage error of a known command. */
export function commandUsage(command: Command): string {
  return `Usage: ${HELP[command].usage}\nRun "petstore ${command} --help" for its options and environment variables.`
}

export function commandHelp(command: Command): string {
  const help = HELP[command]
  const options = columns([...help.options, ['-h, --help', 'show this help']])
  // The table says which variables a command reads; serve reads them all.
  const variables = variablesReadBy(command)
  const others = variables.length < CONFIG_VARIABLES.length ? ' (the others are checked too)' : ''
  return `Usage: ${help.usage}

${help.summary}

Options:
${options}

Environment variables${others}:
${variableRows(variables)}`
}

/** The version in package.json: two levels above this file, whether it runs from src/cli/, dist/cli/ or the bundle. */
export function version(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name?: unknown
      version?: unknown
    }
    if (manifest.name === 'petstore-service' && typeof manifest.version === 'string') return manifest.version
  } catch {
    // a copy of the program without its manifest
  }
  return 'unknown'
}
