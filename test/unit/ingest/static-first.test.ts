import { describe, expect, it } from 'vitest';
import { sendStaticFirst, staticFirst } from '../../../ingest/static-first.ts';
import type { OutRecord } from '../../../platform/kafka/index.ts';

const rec = (topic: string, key: string, n: number): OutRecord => ({ topic, key, value: String(n) });
const names = (groups: OutRecord[][]) => groups.map((g) => g.map((r) => `${r.topic}/${r.key}/${String(r.value)}`));

describe('static data before the reports it explains', () => {
  it('sends a batch without static data as it is', () => {
    const batch = [rec('ais.positions', '1', 1), rec('ais.positions', '2', 2)];
    expect(staticFirst(batch, 'ais.static')).toEqual([batch]);
  });

  it('holds back the reports of vessels whose static data is in the batch until that is acknowledged', () => {
    const batch = [
      rec('ais.positions', '1', 1),
      rec('ais.static', '2', 2),
      rec('ais.positions', '2', 3),
      rec('ais.positions', '3', 4),
      rec('ais.positions', '2', 5),
      rec('ingest.deadletter', 'http:key_1', 6),
    ];
    expect(names(staticFirst(batch, 'ais.static'))).toEqual([
      ['ais.positions/1/1', 'ais.static/2/2', 'ais.positions/3/4', 'ingest.deadletter/http:key_1/6'],
      ['ais.positions/2/3', 'ais.positions/2/5'],
    ]);
  });

  it('sends the second group only after the first resolved', async () => {
    const log: string[] = [];
    const send = async (group: OutRecord[]) => {
      log.push(`start ${group.length}`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`acked ${group.length}`);
    };
    await sendStaticFirst(send, [rec('ais.static', '2', 1), rec('ais.positions', '2', 2), rec('ais.positions', '3', 3)], 'ais.static');
    expect(log).toEqual(['start 2', 'acked 2', 'start 1', 'acked 1']);
  });
});
