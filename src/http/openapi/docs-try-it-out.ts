// A Swagger UI plugin for the /docs page. It runs in the browser: @fastify/swagger-ui writes its source text into
// swagger-initializer.js, so it may use nothing from outside its own body.

/** The part of an Immutable.js Map (Swagger UI's state) the plugin uses. */
interface ParameterState {
  get(key: string): unknown
  delete(key: string): ParameterState
}
/** A selector as Swagger UI hands it to a wrapper: already bound to the state, which the wrapper receives first. */
type ParameterSelector = (...args: unknown[]) => ParameterState | undefined

/**
 * "Try it out" fills each parameter's field with its example, and sends it. An optional parameter's example is an
 * illustration, not a value to send: a cursor this instance never issued (400), an `after` past its feed (410), an
 * Idempotency-Key every click would reuse (the second create replays the first), an If-Match naming another pet's
 * ETag. So optional parameters start empty; required ones (the path's ids) keep their example. The example is still
 * shown beside the parameter outside "Try it out": the page reads it from the operation, not from this selector.
 */
export function optionalParametersStartEmpty() {
  return {
    statePlugins: {
      spec: {
        wrapSelectors: {
          // A method, not an arrow function in a property: a transpiler that keeps function names (tsx does) would
          // wrap the arrow in a helper call that the browser does not have.
          parameterWithMetaByIdentity(selector: ParameterSelector) {
            return (_state: unknown, ...args: unknown[]) => {
              const parameter = selector(...args)
              return parameter && parameter.get('required') !== true ? parameter.delete('example') : parameter
            }
          },
        },
      },
    },
  }
}
