// Operations new in this release that may still change: Swagger UI does not render `x-stability`, so the
// summary (`[beta] …`) and the description carry the marker too.
export const BETA = { 'x-stability': 'beta' } as const
export const BETA_NOTE = '**Beta:** this operation may still change in a backwards-incompatible way.'
