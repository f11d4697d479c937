// Exporting and importing a shop as an operator does: the petstore command as a process of its own.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { CLI } from './cli-path.js'

const TSX = import.meta.resolve('tsx')

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `petstore ARGS` with only PATH and `env` set. */
export function petstore(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The lines of a shop file as JSON values. */
export function shopLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** The rows of one table in a shop file. */
export function shopRows(file: string, table: string): Record<string, unknown>[] {
  return shopLines(file).flatMap((line) =>
    line.table === table && typeof line.row === 'object' && line.row !== null
      ? [line.row as Record<string, unknown>]
      : [],
  )
}

/** What a database holds: its shop file without the header and closing line (which name a time and a store). */
export async function shopContents(url: string, file: string): Promise<string> {
  const result = await petstore(['export', file], { DATABASE_URL: url })
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`)
  return readFileSync(file, 'utf8').split('\n').slice(1, -2).join('\n')
}
