// Position-stream clients for bench/console.ts, in a process of their own so that parsing their messages
// does not share an event loop with the service they measure. The parent sends {url, tokens}; then
// 'mark' and 'report' (answered with the counts since the mark).
import { WebSocket } from 'ws';

interface Setup {
  url: string;
  tokens: string[];
}

let received: number[] = [];
let messages: number[] = [];
let delays: number[] = [];
let marked = { received: [] as number[], messages: [] as number[], at: Date.now() };

process.on('message', (m: Setup | 'mark' | 'report') => {
  if (m === 'mark') {
    marked = { received: [...received], messages: [...messages], at: Date.now() };
    delays = [];
    return;
  }
  if (m === 'report') {
    const seconds = (Date.now() - marked.at) / 1000;
    process.send?.({ seconds, received: received.map((n, c) => n - (marked.received[c] ?? 0)), messages: messages.map((n, c) => n - (marked.messages[c] ?? 0)), delays });
    return;
  }
  received = m.tokens.map(() => 0);
  messages = m.tokens.map(() => 0);
  m.tokens.forEach((token, c) => {
    const ws = new WebSocket(`${m.url.replace(/^http/, 'ws')}/v1/positions/stream?token=${token}`, { perMessageDeflate: false });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', filters: {} })));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { type: string; snapshot?: boolean; positions?: { reported_at: string }[] };
      if (msg.type !== 'positions' || msg.snapshot || !msg.positions) return;
      received[c] = (received[c] ?? 0) + msg.positions.length;
      messages[c] = (messages[c] ?? 0) + 1;
      if (c === 0) delays.push(Date.now() - msg.positions.reduce((a, p) => Math.max(a, Date.parse(p.reported_at)), 0));
    });
    ws.on('error', () => undefined);
  });
  process.send?.('connected');
});
