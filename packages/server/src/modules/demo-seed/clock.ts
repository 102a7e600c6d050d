/**
 * The process's clock set back in time, for `seed:demo` only: the demo data is made through the
 * product's own API month by month, and every row, change-log entry and statistics counter takes
 * its time from `new Date()` / `Date.now()` where the code runs. Setting the clock back makes each of
 * them carry the moment it would have had, without a second way of writing history.
 *
 * The clock keeps running from the moment it is set (timestamps of one step stay in order); `new
 * Date(value)` and everything but the current time are left alone, and timers (setTimeout) run on
 * real time.
 */
const RealDate = Date;

export class ShiftedClock {
  private offsetMs = 0;
  private installed = false;

  /** From now on the process's clock reads `moment`, and runs on from there. */
  set(moment: Date | number): void {
    this.offsetMs = (typeof moment === 'number' ? moment : moment.getTime()) - RealDate.now();
    if (!this.installed) this.install();
  }

  /** The current time as the shifted clock reads it. */
  now(): number {
    return RealDate.now() + this.offsetMs;
  }

  /** The real clock again. */
  restore(): void {
    if (!this.installed) return;
    globalThis.Date = RealDate;
    this.installed = false;
    this.offsetMs = 0;
  }

  private install(): void {
    const now = () => this.now();
    // A proxy rather than a subclass: `Date()` called without `new` keeps working, and every Date
    // made meanwhile is an ordinary Date (instanceof, prototype, statics).
    globalThis.Date = new Proxy(RealDate, {
      construct: (target, args: unknown[], newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
      apply: () => new RealDate(now()).toString(),
      get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
    });
    this.installed = true;
  }
}
