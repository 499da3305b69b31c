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
  const rows = txs.map((t) => ({
    id: t.id, reading_id: t.readingId, gate: t.gate, lane: t.lane, status: t.status, decision: t.decision, created_at: t.createdAt,
    completed_at: t.completedAt, container_key: t.containerKey, plate_key: t.plateKey, risk_score: t.riskScore, body: t.body,
  }));
  const { rows: inserted } = await client.query<{ id: string }>(
    `INSERT INTO gate_transactions (id, reading_id, gate, lane, status, decision, created_at, completed_at, container_key, plate_key, risk_score, body)
     SELECT r.id, r.reading_id, r.gate, r.lane, r.status, r.decision, r.created_at, r.completed_at, r.container_key, r.plate_key, r.risk_score, r.body
       FROM jsonb_to_recordset($1::jsonb) AS r (id text, reading_id text, gate text, lane text, status text, decision text, created_at timestamptz,
            completed_at timestamptz, container_key text, plate_key text, risk_score real, body jsonb)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [JSON.stringify(rows)],
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
  await client.query(
    `INSERT INTO gate_audit (seq, transaction_id, action, at, actor, details, rule, prev_hash, hash)
     SELECT r.seq, r.transaction_id, r.action, r.at, r.actor, r.details, r.rule, r.prev_hash, r.hash
       FROM jsonb_to_recordset($1::jsonb) AS r (seq bigint, transaction_id text, action text, at timestamptz, actor text, details jsonb, rule text, prev_hash text, hash text)`,
    [JSON.stringify(linked.map((e) => ({ seq: e.seq, transaction_id: e.transactionId, action: e.action, at: e.at, actor: e.actor, details: e.details ?? null, rule: e.rule ?? null, prev_hash: e.prevHash, hash: e.hash })))],
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
