// Writes docs/configuration.md from the configuration table (`npm run config:docs`), or checks that the committed
// page is what the code generates (`npm run config:check`, run by CI).
import { readFileSync, writeFileSync } from 'node:fs'
import { configurationPage } from '../src/config/page.js'
import { isMain } from './is-main.js'

export const CONFIGURATION_PAGE = 'docs/configuration.md'
const TEMPLATE = 'src/config/page-template.md'

export function generateConfigurationPage(): string {
  return configurationPage(readFileSync(TEMPLATE, 'utf8'))
}

function committedPage(): string {
  try {
    return readFileSync(CONFIGURATION_PAGE, 'utf8')
  } catch {
    return ''
  }
}

function main(args: string[]): void {
  const page = generateConfigurationPage()
  if (args[0] === '--check') {
    if (committedPage() !== page) {
      console.error(
        `${CONFIGURATION_PAGE} differs from the page the configuration table generates: ` +
          'run `npm run config:docs` and commit the page with the change.',
      )
      process.exitCode = 1
    }
    return
  }
  if (args.length > 0) throw new Error('usage: tsx scripts/write-config-docs.ts [--check]')
  writeFileSync(CONFIGURATION_PAGE, page)
}

if (isMain(import.meta.url)) main(process.argv.slice(2))
