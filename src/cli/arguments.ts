// The petstore command line read into an invocation, before any configuration is read (help works with a broken
// environment), and the checks of each command's arguments. Every mistake is a UsageError: exit 2 with the usage.
import { parseArgs } from 'node:util'
import { COMMANDS, type Command } from './usage.js'
import { VISIBLE_NAME_PATTERN } from '../http/openapi/schema-primitives.js'
import { KeyOptionError, parseExpiry, parseScopeList } from '../keys/key-options.js'

/** A mistake in the command line: exit 2, with the usage of `command` (or the list of commands) on stderr. */
export class UsageError extends Error {
  readonly command: Command | undefined

  constructor(message: string, command?: Command) {
    super(message)
    this.command = command
  }
}

/** What the command line asks for, before any configuration is read (help works with a broken environment). */
export type Invocation =
  | { kind: 'help'; command: Command | undefined; group?: string }
  | { kind: 'version' }
  | { kind: 'run'; command: Command; values: Record<string, string | boolean | undefined>; positionals: string[] }

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const
const KEYS_CREATE_OPTIONS = {
  ...HELP_OPTION,
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  'expires-at': { type: 'string' },
  quiet: { type: 'boolean' },
} as const
const DELIVERIES_OPTIONS = { ...HELP_OPTION, limit: { type: 'string' } } as const
const OPTIONS: Partial<Record<Command, typeof HELP_OPTION>> = {
  'keys create': KEYS_CREATE_OPTIONS,
  'webhooks deliveries': DELIVERIES_OPTIONS,
}
const POSITIONALS: Record<Command, number> = {
  serve: 0,
  migrate: 0,
  'keys create': 0,
  'keys list': 0,
  'keys revoke': 1,
  'webhooks list': 0,
  'webhooks deliveries': 1,
  export: 1,
  import: 1,
}
/** Commands with subcommands, and how their subcommands are listed in messages. */
const GROUPS: Record<string, string> = { keys: 'create, list or revoke', webhooks: 'list or deliveries' }
const EXACTLY_ONE_ID: Partial<Record<Command, string>> = {
  'keys revoke': 'keys revoke needs exactly one key id (see keys list)',
  'webhooks deliveries': 'webhooks deliveries needs exactly one endpoint id (see webhooks list)',
  export: 'export needs exactly one FILE (or - for stdout)',
  import: 'import needs exactly one FILE (or - for stdin)',
}
const isOption = (argument: string | undefined) => argument?.startsWith('-') === true

export function parseInvocation(args: string[]): Invocation {
  const [first, second] = args
  if (first === undefined) throw new UsageError('a command is required')
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = args.slice(1)
    if (topic.length === 0) return { kind: 'help', command: undefined }
    // `petstore help keys create` is read as `petstore keys create --help`, as git and npm read theirs.
    if (isOption(topic[0]) || topic[0] === 'help')
      throw new UsageError(`${first} takes a command's name only; for a command's help: petstore COMMAND --help`)
    return parseInvocation([...topic, '--help'])
  }
  if (first === '--version' || first === '-v') {
    if (args.length > 1) throw new UsageError(`${first} takes no arguments`)
    return { kind: 'version' }
  }
  if (isOption(first)) throw new UsageError(`unknown option ${JSON.stringify(first)}`)
  let command: Command
  let rest: string[]
  const subcommands = Object.hasOwn(GROUPS, first) ? GROUPS[first] : undefined
  if (subcommands !== undefined) {
    if (second === undefined || second === '--help' || second === '-h') {
      if (second === undefined) throw new UsageError(`${first} needs a subcommand: ${subcommands}`)
      return { kind: 'help', command: undefined, group: first }
    }
    if (isOption(second))
      throw new UsageError(
        `${first}: unknown option ${JSON.stringify(second)}; ${first} needs a subcommand: ${subcommands}`,
      )
    command = `${first} ${second}` as Command
    rest = args.slice(2)
  } else {
    command = first as Command
    rest = args.slice(1)
  }
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command ${JSON.stringify(command)}`)

  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    const { values, positionals, tokens } = parseArgs({
      args: rest,
      options: OPTIONS[command] ?? HELP_OPTION,
      strict: true,
      allowPositionals: true,
      tokens: true,
    })
    parsed = { values, positionals }
    // parseArgs keeps the last of an option given twice; `--name a --name b` is more likely a slip than a choice.
    const names = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []))
    const repeated = names.find((name, index) => names.indexOf(name) !== index)
    if (repeated !== undefined) throw new UsageError(`${command}: --${repeated} is given more than once`, command)
  } catch (error) {
    if (error instanceof UsageError) throw error
    // Node's advice about '--' after the first sentence does not apply to any of these commands.
    const message = error instanceof Error ? error.message.split('. To specify a positional')[0] : String(error)
    throw new UsageError(`${command}: ${message}`, command)
  }
  if (parsed.values.help) return { kind: 'help', command }
  const expected = POSITIONALS[command]
  if (parsed.positionals.length !== expected) {
    const needsOneId = EXACTLY_ONE_ID[command]
    if (needsOneId !== undefined) throw new UsageError(needsOneId, command)
    throw new UsageError(`${command}: unexpected argument ${JSON.stringify(parsed.positionals[0])}`, command)
  }
  return { kind: 'run', command, ...parsed }
}

/** Runs a parser of a `keys create` option, its refusal becoming a usage error. */
function keyOption<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof KeyOptionError) throw new UsageError(`keys create: ${error.message}`, 'keys create')
    throw error
  }
}

export interface NewKey {
  name: string
  /** Only the key on stdout. */
  quiet: boolean
  scopes: ReturnType<typeof parseScopeList>
  expiresAt: string | undefined
}

const VISIBLE_NAME = new RegExp(VISIBLE_NAME_PATTERN, 'u')
const NAME_NEEDED =
  'keys create needs --name NAME (1 to 100 characters, no control or bidirectional override characters)'

export function newKeyOptions(values: Record<string, string | boolean | undefined>): NewKey {
  const text = (option: string) => (typeof values[option] === 'string' ? values[option] : undefined)
  const name = text('name')?.trim()
  // Control characters would break the tab-separated `keys list` and could drive the operator's terminal, and a
  // bidirectional override would show the name (and the columns after it) reversed: the rule of an animal's name.
  if (!name || name.length > 100 || !VISIBLE_NAME.test(name)) throw new UsageError(NAME_NEEDED, 'keys create')
  const scopes = keyOption(() => parseScopeList(text('scopes')))
  const expiresAt = keyOption(() =>
    parseExpiry({ expiresIn: text('expires-in'), expiresAt: text('expires-at') }, Date.now()),
  )
  return { name, scopes, expiresAt, quiet: values.quiet === true }
}

/** The id argument of `command` (a key's, an endpoint's): a positive integer, or a usage error. */
export function positiveId(command: Command, what: string, argument: string | undefined): number {
  const id = /^[1-9][0-9]{0,15}$/.test(argument ?? '') ? Number(argument) : NaN
  if (!Number.isSafeInteger(id))
    throw new UsageError(`${command} needs ${what} (a positive integer), not ${JSON.stringify(argument)}`, command)
  return id
}

const DEFAULT_DELIVERIES = 20
const MAX_DELIVERIES = 1000

export function deliveriesLimit(text: string | boolean | undefined): number {
  if (text === undefined) return DEFAULT_DELIVERIES
  const limit = typeof text === 'string' && /^[1-9][0-9]{0,3}$/.test(text) ? Number(text) : NaN
  if (!(limit <= MAX_DELIVERIES))
    throw new UsageError(
      `webhooks deliveries: --limit takes a number from 1 to ${MAX_DELIVERIES}, not ${JSON.stringify(text)}`,
      'webhooks deliveries',
    )
  return limit
}
