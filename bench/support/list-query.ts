// One list endpoint timed the way the list benchmarks report it: sequential requests through the running
// service, a warm-up left out, p50/p95/max and the mean `pagination.total_items` of each case.

export interface ListQueryCase {
  name: string;
  query: () => Record<string, string>;
}

export interface ListQueryResult {
  case: string;
  window: string;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  mean_total_items: number;
}

export interface ListQueryRun {
  url: string;
  key: string;
  /** The list path under the service URL, e.g. /v1/events. */
  path: string;
  warmup: number;
  queries: number;
}

export async function measureListQuery(run: ListQueryRun, c: ListQueryCase, windowName: string, query: () => Record<string, string>): Promise<ListQueryResult> {
  const timings: number[] = [];
  let totals = 0;
  for (let i = 0; i < run.warmup + run.queries; i++) {
    const t = performance.now();
    const res = await fetch(`${run.url}${run.path}?${new URLSearchParams(query())}`, { headers: { authorization: `Bearer ${run.key}` } });
    const body = (await res.json()) as { pagination?: { total_items: number }; error?: unknown };
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${c.name}: HTTP ${res.status} ${JSON.stringify(body)}`);
    if (i < run.warmup) continue;
    timings.push(ms);
    totals += body.pagination?.total_items ?? 0;
  }
  timings.sort((a, b) => a - b);
  const pct = (q: number) => Number((timings[Math.min(timings.length - 1, Math.ceil(q * timings.length) - 1)] as number).toFixed(1));
  const result = { case: c.name, window: windowName, p50_ms: pct(0.5), p95_ms: pct(0.95), max_ms: pct(1), mean_total_items: Math.round(totals / timings.length) };
  console.log(`${windowName.padEnd(15)} ${c.name.padEnd(30)} p50 ${String(result.p50_ms).padStart(6)} ms  p95 ${String(result.p95_ms).padStart(6)} ms  max ${String(result.max_ms).padStart(6)} ms  (${result.mean_total_items} items)`);
  return result;
}
