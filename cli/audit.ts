// `pss audit verify`: recomputes the hash chain of the gate transactions' audit trail (processors/gate/
// audit-chain.ts) and reports every entry that was changed, removed or inserted out of order. Exit 0 when
// the chain is intact, 1 when it is broken, 2 on bad usage. Prints the head (last seq and hash): record it
// elsewhere, since cutting entries from the end leaves a shorter chain that is still consistent.
import { loadConfig } from '../app/config.ts';
import { createPool } from '../platform/postgres.ts';
import { verifyAuditChain } from '../processors/gate/store.ts';
import { usageLine } from './usage.ts';

export async function auditCommand(args: string[]): Promise<number> {
  if (args[0] !== 'verify' || args.length > 1) {
    console.error(usageLine('audit'));
    return 2;
  }
  const config = loadConfig();
  const pool = createPool(config.databaseUrl, 2);
  try {
    const { entries, breaks, head } = await verifyAuditChain(pool);
    const report = { ok: breaks.length === 0, entries, head_seq: head.seq, head_hash: head.hash, breaks: breaks.map((b) => ({ seq: b.seq, transaction_id: b.transactionId, problem: b.problem })) };
    console.log(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  } finally {
    await pool.end();
  }
}
