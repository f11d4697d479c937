// The configuration table as `--help` shows it: one line per variable, and the variables each command reads.
import { CONFIG_TABLE } from '../config.js'

/** The help line of a variable: its description and, when it has one, its default. */
export function variableHelp(name: string): string {
  const entry = CONFIG_TABLE.find(([candidate]) => candidate === name)?.[1]
  if (!entry) throw new RangeError(`${name} is not in the configuration table`)
  const { description, kind } = entry
  return kind.defaultText === undefined ? description : `${description}; default ${kind.defaultText}`
}

/** The variables `command` reads, in the table's order: those every command reads, and its own. */
export function variablesReadBy(command: string): string[] {
  return CONFIG_TABLE.filter(
    ([, { readBy }]) => readBy === 'every command' || readBy.split(' and ').includes(command),
  ).map(([name]) => name)
}
