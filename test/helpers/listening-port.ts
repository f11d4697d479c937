// The TCP port a child process listens on, read from Linux's /proc. A child started with PORT=0 gets a port from
// the kernel that nothing else holds. A port picked in advance (listen on 0, close, hand the number over) can be
// taken by another test's server before the child binds it: the child then fails to start while the readiness
// probe reaches the other server and the test talks to it.
import { readdir, readFile, readlink } from 'node:fs/promises'

/** The sockets (inode numbers) among the process's open files. */
async function socketInodes(pid: number): Promise<Set<string>> {
  const inodes = new Set<string>()
  let descriptors: string[]
  try {
    descriptors = await readdir(`/proc/${pid}/fd`)
  } catch {
    return inodes // the process has ended
  }
  for (const descriptor of descriptors) {
    const target = await readlink(`/proc/${pid}/fd/${descriptor}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (inode) inodes.add(inode)
  }
  return inodes
}

/** The first port in LISTEN state (0A) held by one of the process's sockets; undefined before it listens. */
export async function listeningPort(pid: number): Promise<number | undefined> {
  const inodes = await socketInodes(pid)
  if (inodes.size === 0) return undefined
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')
    // Columns: sl, local address:port (hex), remote address:port, state, queues, timers, retransmits, uid,
    // timeout, inode.
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/)
      const [, local, , state, , , , , , inode] = columns
      if (state === '0A' && inode !== undefined && inodes.has(inode) && local) {
        return Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16)
      }
    }
  }
  return undefined
}
