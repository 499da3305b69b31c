// AIS decode throughput on one core: every real-nmea-*.txt log of test/fixtures/ais (or PSS_AIS_DATA_DIR),
// looped through createAisDecoder. Lines are split
// before timing, so the figure is parse + checksum + reassembly + decode + result objects.
// Run: node --import tsx bench/ais-decode.ts [seconds]   (PSS_AIS_DATA_DIR overrides the folder)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAisDecoder, createLineSplitter } from '../ingest/ais/index.ts';

// The repository's own real recordings (test/fixtures/ais, with their licences); PSS_AIS_DATA_DIR names a
// larger folder of real-nmea-*.txt logs (the figures before 2026-11-26 used 23 logs, 138,866 sentences).
const DATA_DIR = process.env.PSS_AIS_DATA_DIR ?? join(import.meta.dirname, '../test/fixtures/ais');
const SECONDS = Number(process.argv[2] ?? 5);

interface Feed {
  readonly name: string;
  readonly lines: string[];
  readonly sentences: number;
  readonly lenientTagBlocks: boolean;
}

function loadFeeds(): Feed[] {
  const files = readdirSync(DATA_DIR).filter((f) => /^real-nmea-.*\.txt$/.test(f)).sort();
  if (files.length === 0) throw new Error(`no real-nmea-*.txt files in ${DATA_DIR}`);
  return files.map((name) => {
    const splitter = createLineSplitter();
    const lines = [...splitter.push(readFileSync(join(DATA_DIR, name), 'latin1')), ...splitter.flush()];
    const sentences = lines.filter((l) => /![A-Z=-]{2}VD[MO],/.test(l)).length;
    // The one log whose tag blocks all carry *00 is decoded leniently, as it would be configured.
    return { name, lines, sentences, lenientTagBlocks: name.includes('tagblock-2014') };
  });
}

function runOnce(feeds: Feed[], tally: Map<string, number> | undefined): void {
  for (const feed of feeds) {
    const decoder = createAisDecoder({ source: feed.name, now: Date.now, strictTagBlocks: !feed.lenientTagBlocks });
    for (const line of feed.lines) {
      const results = decoder.push(line);
      if (tally) for (const r of results) tally.set(r.kind, (tally.get(r.kind) ?? 0) + 1);
    }
    decoder.expire();
  }
}

const feeds = loadFeeds();
const sentences = feeds.reduce((n, f) => n + f.sentences, 0);
const lines = feeds.reduce((n, f) => n + f.lines.length, 0);
const tally = new Map<string, number>();
runOnce(feeds, tally); // warm-up, and the result mix
runOnce(feeds, undefined);

let passes = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
while (elapsed < SECONDS) {
  runOnce(feeds, undefined);
  passes++;
  elapsed = Number(process.hrtime.bigint() - start) / 1e9;
}

const perSecond = (n: number): string => Math.round((n * passes) / elapsed).toLocaleString('en-US');
console.log(`ais-decode: ${feeds.length} logs, ${lines.toLocaleString('en-US')} lines, ${sentences.toLocaleString('en-US')} VDM/VDO sentences per pass`);
console.log(`results per pass: ${[...tally].map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`${passes} passes in ${elapsed.toFixed(2)} s on one core`);
console.log(`${perSecond(sentences)} sentences/s (${perSecond(lines)} lines/s)`);
