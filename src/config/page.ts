// docs/configuration.md, made from the configuration table and a template that holds the page's prose: the
// template's markers are replaced by the table of variables and the table of retired ones.
import { CONFIG_TABLE } from '../config.js'
import { RETIRED_VARIABLES } from './retired.js'

const VARIABLES_MARKER = '<!-- variables -->'
const RETIRED_MARKER = '<!-- retired -->'

/**
 * A table cell: a pipe would end the cell, a line break the row, and `<token>` would be read as HTML. An example
 * address is code, not a link: it names no real server.
 */
function cell(text: string): string {
  return text
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/\bhttps?:\/\/[^\s,()]+/g, (address) => `\`${address}\``)
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map((row) => line(row.map(cell)))].join('\n')
}

function variablesTable(): string {
  const rows = CONFIG_TABLE.map(([name, { kind, readBy, description }]) => [
    `\`${name}\``,
    readBy === 'every command'
      ? readBy
      : readBy.replace(/\w+/g, (command) => (command === 'and' ? command : `\`${command}\``)),
    kind.defaultText ?? 'unset',
    kind.accepts,
    description,
  ])
  return table(['Variable', 'Read by', 'Default', 'Accepts', 'What it sets'], rows)
}

function retiredTable(): string {
  const rows = Object.entries(RETIRED_VARIABLES).map(([name, { now, why }]) => [`\`${name}\``, now, why])
  return table(['Variable', 'Now', 'Why'], rows)
}

/** The page: `template` with its markers replaced; each marker must appear exactly once. */
export function configurationPage(template: string): string {
  for (const marker of [VARIABLES_MARKER, RETIRED_MARKER]) {
    if (template.split(marker).length !== 2) throw new Error(`the template must hold ${marker} exactly once`)
  }
  return template.replace(VARIABLES_MARKER, variablesTable()).replace(RETIRED_MARKER, retiredTable())
}
