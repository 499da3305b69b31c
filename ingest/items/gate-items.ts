// The items of POST /v1/ingest/gate: each reading validated on its own; findings reported per item.
import type { OutRecord } from '../../platform/kafka/index.ts';
import { processGateItem, type GateContext } from '../gate/readings.ts';
import { ingestMetrics } from '../metrics.ts';
import { ItemLedger, type ItemsOutcome } from './items.ts';

export function gateItems(items: unknown[], ctx: GateContext): ItemsOutcome {
  const ledger = new ItemLedger(items.length);
  const records: OutRecord[] = [];
  items.forEach((item, index) => {
    const outcome = processGateItem(item, ctx);
    records.push(outcome.record);
    if (outcome.accepted) {
      ledger.accept(index, { reading_id: outcome.reading.reading_id, gate: outcome.reading.gate, findings: outcome.reading.findings });
    } else {
      ingestMetrics.rejected.inc({ reason: outcome.reason });
      ledger.reject(index, outcome.reason, outcome.detail);
    }
  });
  ingestMetrics.sentences.inc({ kind: 'gate_http' }, items.length);
  return { answer: ledger.answer('no_reading'), records };
}
