// The client's types, proven with the TypeScript compiler: the usage file compiles under the client's own
// settings, each wrong field in it is a compile error, pets.get is reported deprecated (what makes editors strike
// it through), the committed generated types match the committed document, and the error codes are the service's.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'
import { generateTypes, GENERATED_TYPES } from '../../client/scripts/generate-types.js'
import type { ErrorCode } from '../../client/src/index.js'
import type { ERROR_CODES } from '../../src/http/errors/errors.js'

const CLIENT = join(import.meta.dirname, '..', '..', 'client')
const USAGE = join(CLIENT, 'test-types', 'usage.ts')
const EXPECT_ERROR = '// @ts-expect-error'

// Checked by `npm run typecheck`: the client's ErrorCode is exactly the service's table of codes.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameErrorCodes: Same<ErrorCode, keyof typeof ERROR_CODES> = true

function clientCompilerOptions(): ts.CompilerOptions {
  const configPath = join(CLIENT, 'tsconfig.json')
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile)
  assert.equal(error, undefined)
  return ts.parseJsonConfigFileContent(config, ts.sys, dirname(configPath)).options
}

/** A language service over one file whose text the test chooses (the rest is read from disk). */
function languageService(fileName: string, text: string): ts.LanguageService {
  const options = clientCompilerOptions()
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [fileName],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const content = name === fileName ? text : ts.sys.readFile(name)
      return content === undefined ? undefined : ts.ScriptSnapshot.fromString(content)
    },
    getCurrentDirectory: () => CLIENT,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: (name) => name === fileName || ts.sys.fileExists(name),
    readFile: (name) => (name === fileName ? text : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  }
  return ts.createLanguageService(host)
}

function errorsOf(service: ts.LanguageService, fileName: string): ts.Diagnostic[] {
  return [...service.getSyntacticDiagnostics(fileName), ...service.getSemanticDiagnostics(fileName)]
}

function lineOf(diagnostic: ts.Diagnostic): number {
  assert.ok(diagnostic.file && diagnostic.start !== undefined)
  return diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
}

function describeDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  return diagnostics
    .map(
      (diagnostic) =>
        `${lineOf(diagnostic) + 1}: TS${diagnostic.code} ` +
        `${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    )
    .join('\n')
}

describe('@petstore/client types', () => {
  const usage = readFileSync(USAGE, 'utf8')

  it("the usage file compiles under the client's settings (every @ts-expect-error meets its error)", () => {
    const errors = errorsOf(languageService(USAGE, usage), USAGE)
    assert.equal(errors.length, 0, describeDiagnostics(errors))
  })

  it('each line marked @ts-expect-error is a compile error of its own', () => {
    const lines = usage.split('\n')
    const marked = lines.flatMap((line, index) => (line.trim().startsWith(EXPECT_ERROR) ? [index + 1] : []))
    assert.ok(marked.length >= 10)
    // The same file without the directives: an error on exactly the lines they stood above, and nowhere else.
    const stripped = lines.map((line) => (line.trim().startsWith(EXPECT_ERROR) ? '//' : line)).join('\n')
    const errors = errorsOf(languageService(USAGE, stripped), USAGE)
    assert.deepEqual(
      [...new Set(errors.map(lineOf))].sort((a, b) => a - b),
      marked,
      describeDiagnostics(errors),
    )
  })

  it('pets.get is deprecated: TypeScript reports its call (the diagnostic editors strike through), and no \
other', () => {
    const suggestions = languageService(USAGE, usage).getSuggestionDiagnostics(USAGE)
    // 6385: "'{0}' is deprecated."; 6387: "The signature '{0}' of '{1}' is deprecated."
    const deprecated = suggestions.filter((diagnostic) => diagnostic.code === 6385 || diagnostic.code === 6387)
    assert.equal(deprecated.length, 1, describeDiagnostics(suggestions))
    const [diagnostic] = deprecated
    assert.ok(diagnostic?.reportsDeprecated)
    const line = usage.split('\n')[lineOf(diagnostic)] ?? ''
    assert.match(line, /client\.pets\.get\(/)
    assert.equal(usage.slice(diagnostic.start, (diagnostic.start ?? 0) + (diagnostic.length ?? 0)), 'get')
  })

  it('the committed generated types are what openapi-typescript makes of the committed document', async () => {
    assert.equal(await generateTypes(), readFileSync(GENERATED_TYPES, 'utf8'), 'run: npm run generate -w client')
  })

  it("ErrorCode is the service's table of codes (checked by the compiler)", () => {
    assert.equal(sameErrorCodes, true)
  })
})
