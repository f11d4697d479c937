// A value whose JSON text is already known (made by SQLite, or stored for an idempotent replay) is sent as
// that text. Routes return plain values and never see it: the response serialisers of every route are
// wrapped once, where the Fastify instance is made (create-fastify.ts), to look the text up first.
const texts = new WeakMap<object, string>()

/** Remembers `text` as the JSON of `value`, which must be exactly what the route's response schema makes of it. */
export function withJsonText<Value extends object>(value: Value, text: string): Value {
  texts.set(value, text)
  return value
}

/** The JSON text remembered for `value`, if any. */
export function knownJsonText(value: object): string | undefined {
  return texts.get(value)
}

/** A response serialiser that sends a value's known JSON text and serialises every other value. */
export function preferringKnownJson(serialise: (value: unknown) => string): (value: unknown) => string {
  return (value) => (typeof value === 'object' && value !== null ? texts.get(value) : undefined) ?? serialise(value)
}
