// A step of the wall clock within this process, for tests of what a step (an NTP correction, a virtual machine
// resumed) must not disturb: Date.now() and new Date() read `stepMs` from the true time; the monotonic clock
// (performance.now(), timers) is left as it is, as a real step leaves it.
const WallClockDate = Date

/** Sets every reading of the wall clock in this process `stepMs` from the true time; 0 puts it back. */
export function stepWallClock(stepMs: number): void {
  class SteppedDate extends WallClockDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(WallClockDate.now() + stepMs)
      else super(...(args as ConstructorParameters<DateConstructor>))
    }
    static override now(): number {
      return WallClockDate.now() + stepMs
    }
  }
  globalThis.Date = stepMs === 0 ? WallClockDate : (SteppedDate as DateConstructor)
}
