// Issue 25: the Grafana dashboard (infra/grafana/) and the Prometheus alerting rules (infra/prometheus/)
// are checked against the real thing: the rules by promtool (Debian's `prometheus` package, installed by
// infra/promtool.sh from infra/test.sh), and every metric a panel or a rule queries against the /metrics
// of a running service with every role and feature.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startChildService, type ChildService } from '../../support/child-service.ts';
import { testConfig } from '../../support/stack.ts';

const INFRA = fileURLToPath(new URL('../../../infra/', import.meta.url));
const RULES = `${INFRA}prometheus/alerts.yml`;
const RULE_TESTS = `${INFRA}prometheus/alerts.test.yml`;
const DASHBOARDS = readdirSync(`${INFRA}grafana`).filter((f) => f.endsWith('.json')).map((f) => `${INFRA}grafana/${f}`);

/** Series Prometheus makes itself for every target: no instance exports them. */
const PROMETHEUS_OWN = new Set(['up']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads (functions, aggregations, keywords, labels and literals removed). */
export function metricNames(expr: string): string[] {
  const s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of s.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const before = s[m.index - 1] ?? ' ';
    if (/[0-9.]/.test(before)) continue; // an exponent or a duration unit
    if (s.slice(m.index + m[0].length).trimStart().startsWith('(')) continue; // a function or an aggregation
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

/**
 * The names of the series a /metrics text holds: a sample line's name. A metric declared (`# TYPE`) but
 * without a sample is no series to Prometheus: a panel shows "No data" and a rule sees nothing, not zero.
 */
export function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name] of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? \S+$/gm)) names.add(name as string);
  return names;
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

function dashboardQueries(file: string): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[]; templating?: { list: { name: string; query?: string | { query?: string } }[] } };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${file} panel "${p.title}"`, expr: t.expr ?? '' })));
  for (const variable of dashboard.templating?.list ?? []) {
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const metric = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,/.exec(query ?? '')?.[1];
    if (metric !== undefined) queries.push({ where: `${file} variable ${variable.name}`, expr: metric });
  }
  return queries;
}

function ruleQueries(): { where: string; expr: string }[] {
  const rules = parse(readFileSync(RULES, 'utf8')) as { groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[] };
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `${RULES} ${g.name}/${r.alert ?? r.record}`, expr: r.expr })));
}

function promtool(): string {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') throw new Error("promtool is not installed: run `bash infra/promtool.sh` (installs Debian's `prometheus` package; `npm test` runs it)");
  return found;
}

describe('the metric name parser', () => {
  it('counts a metric as a series only with a sample', () => {
    const text = '# HELP a_total A\n# TYPE a_total counter\n# HELP b_total B\n# TYPE b_total counter\nb_total{reason="x y"} 0\nc_seconds_bucket{le="+Inf"} 3\nd 1.5e-7\n';
    expect([...seriesNames(text)]).toEqual(['b_total', 'c_seconds_bucket', 'd']);
  });

  it('keeps metric names and drops functions, aggregations, labels, ranges and keywords', () => {
    expect(metricNames('histogram_quantile(0.99, sum by (le, kind) (rate(pss_x_seconds_bucket{job=~"$job",kind!="a b"}[5m]))) > 1e-3')).toEqual(['pss_x_seconds_bucket']);
    expect(metricNames('sum(rate(a_total[10m])) / clamp_min(sum(rate(b_total[10m])), 0.001) > 0.05 and on (instance) up == 0')).toEqual(['a_total', 'b_total', 'up']);
    expect(metricNames('max by (group) (pss_consumer_group_status) >= 2 unless c offset 5m')).toEqual(['pss_consumer_group_status', 'c']);
  });
});

describe('alerting rules', () => {
  it('pass promtool check rules', () => {
    const out = execFileSync(promtool(), ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS: \d+ rules found/);
    expect(Number(/SUCCESS: (\d+) rules found/.exec(out)?.[1])).toBe(ruleQueries().length);
  });

  it("pass promtool's unit tests of the rules (infra/prometheus/alerts.test.yml)", () => {
    const run = spawnSync(promtool(), ['test', 'rules', RULE_TESTS], { encoding: 'utf8', cwd: `${INFRA}prometheus` });
    expect(run.stdout + run.stderr).toMatch(/SUCCESS/);
    expect(run.status).toBe(0);
  });
});

describe('dashboards and alerts query only metrics the service exports', () => {
  let service: ChildService;
  let metrics = '';
  const prefix = testConfig().topicPrefix;

  beforeAll(async () => {
    // Every role and feature, the zone processor in a worker thread (its group reported from there), the
    // health reporter (off in the other tests), and an AIS source of each transport: a TCP receiver that
    // refuses (port 1) and a UDP port nobody sends to. Nothing is sent to it: every series must be there
    // at zero before first use (issue 33).
    service = await startChildService(testConfig(), 'ingest,processors,api', {
      PSS_CONSUMER_LAG_SAMPLE_MS: '300', PSS_MARITIME_ZONE_WORKERS: '1', PSS_HEALTH_REPORT_INTERVAL_MS: '1000',
      PSS_AIS_TCP_SOURCES: 'dashboard-tcp=127.0.0.1:1', PSS_AIS_UDP_SOURCES: 'dashboard-udp=127.0.0.1:0',
    });
    const deadline = Date.now() + 30_000;
    const ready = () => metrics.includes(`pss_consumer_group_status{group="${prefix}maritime-zones"}`) && metrics.includes('pss_health_component_status{');
    while (Date.now() < deadline && !ready()) {
      metrics = await (await fetch(`${service.url}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
  });

  it('the service samples the lag of its consumer groups, those of its role workers too', () => {
    expect(metrics).toContain(`pss_consumer_group_status{group="${prefix}maritime-zones"}`);
    expect(metrics).toMatch(new RegExp(`^pss_consumer_group_end_offset\\{group="${prefix}vessel-positions",topic="[^"]+",partition="0"\\} \\d+$`, 'm'));
  });

  it('every metric of every dashboard panel and alerting rule is a series on /metrics of a fresh instance, at zero before first use', () => {
    const names = seriesNames(metrics);
    const queries = [...DASHBOARDS.flatMap(dashboardQueries), ...ruleQueries()];
    expect(DASHBOARDS.length).toBeGreaterThan(0);
    expect(queries.length).toBeGreaterThan(40);
    const missing = queries.flatMap(({ where, expr }) => metricNames(expr).filter((n) => !names.has(n) && !PROMETHEUS_OWN.has(n)).map((n) => `${where}: ${n}`));
    expect(missing).toEqual([]);
    // Every query reads at least one metric (a typo that makes a whole expression a function call would read none).
    expect(queries.filter(({ expr }) => metricNames(expr).length === 0)).toEqual([]);
  });
});
