// Options for a unit test whose work is fixed by its own loop (a property or fuzz test of N iterations, a
// big generated or recorded input): its iterations bound it, not the clock. On a machine busy with other
// work the same iterations take many times longer (issue 33: vitest's 5 s default failed four such tests,
// correct and finished, at a load of 15 on two cores), so a wall-clock limit measures the machine, not the
// code. And it could not catch a runaway anyway: vitest can only time a synchronous test after it returns.
// Only for tests whose every loop has a fixed count and that wait on nothing (no timers, sockets, threads
// or processes); a test of fixed work that waits takes WORK_BOUNDED_WAITING below.
export const WORK_BOUNDED = { timeout: 0 } as const;

/**
 * For a test of fixed work that also waits on something that could in principle never answer (a worker
 * thread, the thread pool, a child process): a generous limit that no busy machine reaches (the slowest
 * of them took 12 s at a load of 18 on two cores, 1-2 s idle) and only a wait that never ends does.
 */
export const WORK_BOUNDED_WAITING = { timeout: 120_000 } as const;
