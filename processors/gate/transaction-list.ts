// GET /v1/transactions and GET /v1/transactions/{id}: the query read into a filter (pure), the SQL built
// from it (pure; every value a parameter, each condition served by an index of migration 0014), and the reads.
import { parseInstant } from '../../events/event-filter.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { TransactionDetail, TransactionListItem, TransactionListQuery } from '../../schemas/gate-transaction.ts';
import { chainedOf } from './store.ts';
import { comparable } from './risk.ts';
import { detailView, listView, type StoredBody, type TransactionState } from './transaction.ts';

/** The statuses a transaction with each automated decision can have (decision.ts; an override changes both). */
const DECISION_STATUSES: Record<string, string[]> = { auto_approved: ['approved'], manual_review: ['flagged', 'held'], auto_rejected: ['rejected'] };

/** Spec "Limits": the default time window is the 24 hours before its end. */
const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface TransactionFilter {
  start: Date;
  end: Date;
  status?: string;
  gate?: string;
  decision?: string;
  /** Comparable form (comparable()): the id or its beginning. */
  containerPrefix?: string;
  plate?: string;
  /** Comparable form: the beginning of the container id or of the plate. */
  search?: string;
  sort: 'created_at' | 'risk_score' | 'gate' | 'review';
  order: 'asc' | 'desc';
  page: number;
  perPage: number;
}

export interface FilterProblem {
  path: string;
  message: string;
}

export function transactionFilter(query: TransactionListQuery, now: Date): { filter: TransactionFilter; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const instant = (name: string, raw: string): Date => {
    const at = parseInstant(raw);
    if (at === undefined) problems.push({ path: `/${name}`, message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T07:00:00Z' });
    return at ?? new Date(0);
  };
  const end = query.end_date === undefined ? now : instant('end_date', query.end_date);
  const start = query.start_date === undefined ? new Date(end.getTime() - DEFAULT_WINDOW_MS) : instant('start_date', query.start_date);
  if (problems.length === 0 && start > end) problems.push({ path: '/start_date', message: `must not be after end_date (${end.toISOString()})` });
  const containerPrefix = comparable(query.container_id);
  const plate = comparable(query.vehicle_plate);
  if (containerPrefix === '') problems.push({ path: '/container_id', message: 'must contain a letter or digit' });
  if (plate === '') problems.push({ path: '/vehicle_plate', message: 'must contain a letter or digit' });
  const search = comparable(query.search);
  if (search === '') problems.push({ path: '/search', message: 'must contain a letter or digit' });
  const filter: TransactionFilter = {
    start, end, sort: query.sort, order: query.order, page: query.page, perPage: query.per_page,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.gate === undefined ? {} : { gate: query.gate }),
    ...(query.decision === undefined ? {} : { decision: query.decision }),
    ...(containerPrefix === undefined ? {} : { containerPrefix }),
    ...(plate === undefined ? {} : { plate }),
    ...(search === undefined ? {} : { search }),
  };
  return { filter, problems };
}

/** The problems of a query as sent, before its schema defaults (the route's `check`). */
export function transactionQueryProblems(query: unknown, now: Date): FilterProblem[] {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const text = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
  const only = Object.fromEntries(['start_date', 'end_date', 'container_id', 'vehicle_plate', 'search'].map((k) => [k, text(k)]).filter(([, v]) => v !== undefined));
  return transactionFilter({ sort: 'created_at', order: 'desc', page: 1, per_page: 1, ...only }, now).problems;
}

/** LIKE pattern of a prefix: the comparable form holds no `%` or `_`, but escape anyway. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function transactionListSql(f: TransactionFilter): { page: string; count: string; params: unknown[]; pageParams: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where = [`created_at >= ${p(f.start, 'timestamptz')}`, `created_at <= ${p(f.end, 'timestamptz')}`];
  if (f.status !== undefined) where.push(`status = ${p(f.status, 'text')}`);
  if (f.gate !== undefined) where.push(`gate = ${p(f.gate, 'text')}`);
  // Each status holds exactly one automated decision (approved: auto_approved, flagged and held:
  // manual_review, rejected: auto_rejected; an override sets both to other values), so the decision is
  // its statuses, and the status index answers it from the index alone.
  if (f.decision !== undefined) where.push(`status = ANY(${p(DECISION_STATUSES[f.decision] ?? [], 'text[]')})`);
  if (f.containerPrefix !== undefined) where.push(`container_key LIKE ${p(likePrefix(f.containerPrefix), 'text')}`);
  if (f.plate !== undefined) where.push(`plate_key = ${p(f.plate, 'text')}`);
  // Both prefix ranges are index ranges (text_pattern_ops, migrations 0014 and 0029), OR-ed in a bitmap.
  if (f.search !== undefined) {
    const pattern = p(likePrefix(f.search), 'text');
    where.push(`(container_key LIKE ${pattern} OR plate_key LIKE ${pattern})`);
  }
  const conditions = where.join(' AND ');
  const count = `SELECT count(*)::bigint AS n FROM gate_transactions WHERE ${conditions}`;
  const countParams = [...params];
  const dir = f.order === 'asc' ? 'ASC' : 'DESC';
  // Ties are broken by time, then id, in the same direction, so pages never overlap.
  const keys = f.sort === 'risk_score' ? ['risk_score', 'created_at', 'id'] : f.sort === 'gate' ? ['gate', 'created_at', 'id'] : ['created_at', 'id'];
  const orderBy = keys.map((k) => `${k} ${dir}`).join(', ');
  // The page's ids (and sort keys) first, from the indexes alone where they can; then only its bodies.
  const outer = keys.map((k) => `p.${k} ${dir}`).join(', ');
  const bodies = (ids: string, order: string) => `SELECT t.body, t.status, t.decision, t.completed_at, t.operator FROM (${ids}) AS p JOIN gate_transactions AS t ON t.id = p.id ORDER BY ${order}`;
  if (f.sort === 'review') {
    // What waits for an officer (flagged, held) before the rest, whichever the order, each part by risk
    // score. Sorting the window by that expression read every row of it (330 ms for 7 days of 230,000 at
    // load 20); two ordered branches, each cut at the page's end, walk the partial review index (migration
    // 0029) and the risk-score index from the top instead (about 1 ms).
    const review = `risk_score ${dir}, created_at ${dir}, id ${dir}`;
    const end = p(f.page * f.perPage, 'bigint');
    const branch = (waiting: boolean) =>
      `(SELECT ${waiting} AS needs_review, risk_score, created_at, id FROM gate_transactions WHERE ${conditions} AND status ${waiting ? 'IN' : 'NOT IN'} ('flagged', 'held') ORDER BY ${review} LIMIT ${end})`;
    const ids = `SELECT * FROM (${branch(true)} UNION ALL ${branch(false)}) AS u ORDER BY needs_review DESC, ${review} LIMIT ${p(f.perPage, 'int')} OFFSET ${p((f.page - 1) * f.perPage, 'bigint')}`;
    return { page: bodies(ids, `p.needs_review DESC, p.risk_score ${dir}, p.created_at ${dir}, p.id ${dir}`), count, params: countParams, pageParams: params };
  }
  const page = bodies(`SELECT ${keys.join(', ')} FROM gate_transactions WHERE ${conditions} ORDER BY ${orderBy} LIMIT ${p(f.perPage, 'int')} OFFSET ${p((f.page - 1) * f.perPage, 'bigint')}`, outer);
  return { page, count, params: countParams, pageParams: params };
}

interface Row {
  body: StoredBody;
  status: string;
  decision: string;
  completed_at: Date | null;
  operator: string | null;
}

const stateOf = (r: Row): TransactionState => ({ status: r.status, decision: r.decision, completed_at: r.completed_at?.toISOString() ?? null, operator: r.operator });

export async function listTransactions(pool: Pool, f: TransactionFilter): Promise<{ items: TransactionListItem[]; total: number }> {
  const sql = transactionListSql(f);
  const [page, count] = await Promise.all([pool.query<Row>(sql.page, sql.pageParams), pool.query<{ n: string }>(sql.count, sql.params)]);
  return { items: page.rows.map((r) => listView(r.body, stateOf(r))), total: Number(count.rows[0]?.n ?? 0) };
}

export async function readTransaction(pool: Pool, id: string): Promise<TransactionDetail | undefined> {
  const [tx, audit] = await Promise.all([
    pool.query<Row>('SELECT body, status, decision, completed_at, operator FROM gate_transactions WHERE id = $1', [id]),
    pool.query('SELECT * FROM gate_audit WHERE transaction_id = $1 ORDER BY seq', [id]),
  ]);
  const row = tx.rows[0];
  if (!row) return undefined;
  const trail = audit.rows.map((r) => {
    const e = chainedOf(r as Parameters<typeof chainedOf>[0]);
    return { action: e.action, timestamp: e.at, actor: e.actor, ...(e.details ? { details: e.details } : {}), ...(e.rule ? { rule: e.rule } : {}) };
  });
  return detailView(row.body, stateOf(row), trail);
}
