// Postgres side of the gate: appointments, transactions and the audit chain. Every value a parameter.
import type { Pool, PoolClient } from '../../platform/postgres.ts';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import { chain, GENESIS_HASH, verifyChain, type AuditEntry, type ChainBreak, type ChainedEntry } from './audit-chain.ts';
import type { NewTransaction } from './transaction.ts';

/** One lock key for the audit chain: appending takes it for the rest of the transaction, so links never fork. */
const AUDIT_CHAIN_LOCK = 0x6761_7465; // "gate"

export async function upsertAppointments(pool: Pool, appointments: GateAppointment[]): Promise<void> {
  if (appointments.length === 0) return;
  // The last version of an id in the batch wins, as compaction keeps it.
  const latest = new Map(appointments.map((a) => [a.appointment_id, a]));
  await pool.query(
    `INSERT INTO gate_appointments (appointment_id, body, updated_at)
     SELECT a->>'appointment_id', a, now() FROM jsonb_array_elements($1::jsonb) AS a
     ON CONFLICT (appointment_id) DO UPDATE SET body = EXCLUDED.body, updated_at = now()`,
    [JSON.stringify([...latest.values()])],
  );
}

export async function deleteAppointments(pool: Pool, ids: string[]): Promise<void> {
  if (ids.length > 0) await pool.query('DELETE FROM gate_appointments WHERE appointment_id = ANY($1::text[])', [ids]);
}

export async function loadAppointments(pool: Pool, ids: string[]): Promise<Map<string, GateAppointment>> {
  if (ids.length === 0) return new Map();
  const { rows } = await pool.query<{ body: GateAppointment }>('SELECT body FROM gate_appointments WHERE appointment_id = ANY($1::text[])', [ids]);
  return new Map(rows.map((r) => [r.body.appointment_id, r.body]));
}

/** Inserts the transactions whose reading is new; returns the ids inserted (a replayed reading is not). */
export async function insertTransactions(client: PoolClient, txs: NewTransaction[]): Promise<Set<string>> {
  if (txs.length === 0) return new Set();
  // Scalar columns as one array each (unnest); the bodies as one JSON document, zipped with them row by row
  // (ROWS FROM). An array of jsonb would be an array literal of escaped JSON texts: 5,000 bodies took 1.6 s
  // to build and parse that way, against 0.3 s as one document (bench/gate-pipeline.ts).
  const { rows: inserted } = await client.query<{ id: string }>(
    `INSERT INTO gate_transactions (id, reading_id, gate, lane, status, decision, created_at, completed_at, container_key, plate_key, risk_score, body)
     SELECT * FROM ROWS FROM (
       unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]), unnest($6::text[]),
       unnest($7::timestamptz[]), unnest($8::timestamptz[]), unnest($9::text[]), unnest($10::text[]), unnest($11::real[]),
       jsonb_array_elements($12::jsonb))
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      txs.map((t) => t.id), txs.map((t) => t.readingId), txs.map((t) => t.gate), txs.map((t) => t.lane), txs.map((t) => t.status), txs.map((t) => t.decision),
      txs.map((t) => t.createdAt), txs.map((t) => t.completedAt), txs.map((t) => t.containerKey), txs.map((t) => t.plateKey), txs.map((t) => t.riskScore),
      JSON.stringify(txs.map((t) => t.body)),
    ],
  );
  return new Set(inserted.map((r) => r.id));
}

/** Appends entries to the audit chain in the caller's transaction (which holds the chain's lock until it ends). */
export async function appendAudit(client: PoolClient, entries: AuditEntry[]): Promise<ChainedEntry[]> {
  if (entries.length === 0) return [];
  await client.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_CHAIN_LOCK]);
  const { rows } = await client.query<{ seq: string; hash: string }>('SELECT seq, hash FROM gate_audit ORDER BY seq DESC LIMIT 1');
  const head = rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : { seq: 0, hash: GENESIS_HASH };
  const linked = chain(head, entries);
  // Details as one JSON document (JSON null for none, stored as SQL NULL), as in insertTransactions.
  await client.query(
    `INSERT INTO gate_audit (seq, transaction_id, action, at, actor, details, rule, prev_hash, hash)
     SELECT seq, transaction_id, action, at, actor, nullif(details, 'null'::jsonb), rule, prev_hash, hash FROM ROWS FROM (
       unnest($1::bigint[]), unnest($2::text[]), unnest($3::text[]), unnest($4::timestamptz[]), unnest($5::text[]),
       jsonb_array_elements($6::jsonb), unnest($7::text[]), unnest($8::text[]), unnest($9::text[]))
       AS u(seq, transaction_id, action, at, actor, details, rule, prev_hash, hash)`,
    [
      linked.map((e) => e.seq), linked.map((e) => e.transactionId), linked.map((e) => e.action), linked.map((e) => e.at), linked.map((e) => e.actor),
      JSON.stringify(linked.map((e) => e.details ?? null)), linked.map((e) => e.rule ?? null), linked.map((e) => e.prevHash), linked.map((e) => e.hash),
    ],
  );
  return linked;
}

interface AuditRow {
  seq: string;
  transaction_id: string;
  action: string;
  at: Date;
  actor: string;
  details: Record<string, unknown> | null;
  rule: string | null;
  prev_hash: string;
  hash: string;
}

export function chainedOf(r: AuditRow): ChainedEntry {
  return {
    seq: Number(r.seq), transactionId: r.transaction_id, action: r.action, at: r.at.toISOString(), actor: r.actor,
    ...(r.details === null ? {} : { details: r.details }), ...(r.rule === null ? {} : { rule: r.rule }), prevHash: r.prev_hash, hash: r.hash,
  };
}

/** Audit entries after `afterSeq`, in chain order, at most `limit`. */
export async function readAuditPage(pool: Pool, afterSeq: number, limit: number): Promise<ChainedEntry[]> {
  const { rows } = await pool.query<AuditRow>('SELECT * FROM gate_audit WHERE seq > $1 ORDER BY seq LIMIT $2', [afterSeq, limit]);
  return rows.map(chainedOf);
}

/** Recomputes the whole audit chain, a page at a time; every break found, and the head reached. */
export async function verifyAuditChain(pool: Pool, pageSize = 10_000): Promise<{ entries: number; breaks: ChainBreak[]; head: { seq: number; hash: string } }> {
  let head = { seq: 0, hash: GENESIS_HASH };
  let entries = 0;
  const breaks: ChainBreak[] = [];
  for (;;) {
    const page = await readAuditPage(pool, head.seq, pageSize);
    if (page.length === 0) return { entries, breaks, head };
    const checked = verifyChain(page, head);
    breaks.push(...checked.breaks);
    entries += page.length;
    head = checked.head;
  }
}
