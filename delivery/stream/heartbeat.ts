// The stream's liveness schedule (spec "WebSocket stream": a heartbeat every 30 seconds; a client with no
// heartbeat for 60 seconds reconnects). At each beat the server also pings at the WebSocket level; a client
// that has not answered the previous ping by the next beat is dropped, so a dead peer goes within 60 s.

export const HEARTBEAT_INTERVAL_MS = 30_000;

/**
 * Milliseconds from `now` to the connection's next beat: beats fall on whole intervals since it connected,
 * at least half an interval apart. (A timer may fire a moment before its boundary by the wall clock; the
 * next beat is then the following boundary, not one a millisecond later that would find the ping unanswered.)
 */
export function untilNextBeat(connectedAt: number, now: number, interval = HEARTBEAT_INTERVAL_MS): number {
  const elapsed = Math.max(0, now - connectedAt);
  const left = interval - (elapsed % interval);
  return left < interval / 2 ? left + interval : left;
}

/** A beat drops the connection whose previous ping went unanswered; otherwise it sends a heartbeat and pings again. */
export function beatAction(pingUnanswered: boolean): 'drop' | 'beat' {
  return pingUnanswered ? 'drop' : 'beat';
}

export function uptimeSeconds(connectedAt: number, now: number): number {
  return Math.max(0, Math.floor((now - connectedAt) / 1000));
}
