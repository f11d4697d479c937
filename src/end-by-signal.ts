// A command that ends itself by the signal it received, once it has done what it must first (withdrawn a key it
// could not show, given up an export): its status is then the one a shell gives a process the signal killed.
import { constants } from 'node:os'

/**
 * Ends the process at once by `signal`, none of whose listeners may be left: with none, Node lets it act as it would
 * by default. As process 1 (the command run as a container's entry point without an init) a signal without a
 * handler is ignored by the kernel, so the process then exits itself, with that status.
 */
export function endBySignal(signal: NodeJS.Signals): never {
  process.kill(process.pid, signal)
  process.exit(128 + constants.signals[signal])
}
