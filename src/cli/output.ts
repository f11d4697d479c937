// A command whose output standard output could not take (its reader gone: EPIPE; a full disk or /dev/full:
// ENOSPC) fails. console.log ignores such errors, so `petstore keys list > keys.txt` on a full disk, or `migrate`
// into a closed pipe, exited 0 having written nothing, and a script would take the missing lines for an empty
// answer. export writes to standard output on its own terms (writer.ts); keys create waits for its key to be
// written and withdraws it when that fails (keys/standard-output.ts).

/** From now on, an error of standard output makes the command exit 1, saying so once on stderr. */
export function failOnUnwrittenOutput(): void {
  let reported = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    process.exitCode = 1
    if (reported) return
    reported = true
    console.error(`petstore: the output could not be written to standard output (${error.code ?? error.message})`)
  })
}
