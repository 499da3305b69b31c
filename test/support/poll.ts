// Waiting on a condition that something else brings about (a health reporter's pass, a sampler's round,
// another process): poll until it yields a value, and on timeout fail with what was seen last, so a red
// run says why.

/** Calls `what` every 200 ms until it gives a value other than undefined, and returns that value; past `timeoutMs`, throws with `describe()`. */
export async function pollFor<T>(what: () => T | undefined | Promise<T | undefined>, timeoutMs: number, describe: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
