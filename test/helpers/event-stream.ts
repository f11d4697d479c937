// Reading GET /v1/events/stream as raw Server-Sent Events, frame by frame (a frame ends with an empty line).
import assert from 'node:assert/strict'

export interface StreamReader {
  response: Response
  /** The next frame, without its final empty line (e.g. `id: 5\nevent: pet.created\ndata: {…}` or `: heartbeat`). */
  nextFrame(): Promise<string>
  /** Frames until `count` of them are events (comments skipped), as their parsed fields. */
  nextEvents(count: number): Promise<StreamEvent[]>
  /** Resolves once the server has ended the stream; rejects if more frames come first. */
  ended(): Promise<void>
  close(): Promise<void>
}

export interface StreamEvent {
  id: string
  event: string
  data: string
}

export function parseFrame(frame: string): StreamEvent | undefined {
  if (frame.startsWith(':')) return undefined
  const fields = Object.fromEntries(
    frame.split('\n').map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
  )
  assert.deepEqual(Object.keys(fields), ['id', 'event', 'data'], frame)
  return { id: String(fields.id), event: String(fields.event), data: String(fields.data) }
}

/** Opens a stream, which must be answered 200. */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<StreamReader> {
  const response = await fetch(url, { headers })
  assert.equal(response.status, 200, response.status === 200 ? '' : await response.text())
  const body = response.body
  assert.ok(body)
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  let done = false

  async function nextFrame(): Promise<string> {
    for (;;) {
      const end = buffered.indexOf('\n\n')
      if (end !== -1) {
        const frame = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        return frame
      }
      const chunk = await reader.read()
      if (chunk.done) {
        done = true
        throw new Error(`the stream ended${buffered ? ` with ${JSON.stringify(buffered)} unread` : ''}`)
      }
      buffered += decoder.decode(chunk.value, { stream: true })
    }
  }

  return {
    response,
    nextFrame,
    async nextEvents(count) {
      const events: StreamEvent[] = []
      while (events.length < count) {
        const event = parseFrame(await nextFrame())
        if (event) events.push(event)
      }
      return events
    },
    async ended() {
      for (;;) {
        if (done) return
        const frame = await nextFrame().catch((error: unknown) => {
          if (done) return undefined
          throw error
        })
        if (frame === undefined) return
        assert.ok(frame.startsWith(':'), `an event after the end was expected: ${frame}`)
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined)
    },
  }
}
