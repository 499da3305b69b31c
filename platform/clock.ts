/**
 * Wall-clock time and timers behind one small interface (ARCHITECTURE principle 2): code that keeps
 * wall-clock schedules (WebSocket heartbeats, deadlines) takes a Clock, so tests advance time themselves.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
