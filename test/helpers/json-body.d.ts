// Tests read response bodies as `any`: their shape is what the assertions check, not what the compiler assumes.
declare global {
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>
  }
}
export {}
