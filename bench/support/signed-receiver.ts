// A webhook receiver for benchmarks: node:http on loopback, answering 200 at once, checking every 50th
// signature as a customer's endpoint would (docs/events-and-delivery.md "Verifying a delivery"), and handing
// each body on.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeliveryBody {
  id: string;
  attempt: number;
  event: { id: string; type: string; timestamp: string; metadata: Record<string, unknown> };
}

/** Signatures checked and found wrong, summed over the receivers that share it. */
export interface SignatureTally {
  checked: number;
  wrong: number;
}

export interface SignedReceiver {
  url: string;
  close(): void;
}

export function startSignedReceiver(secret: string, tally: SignatureTally, onBody: (body: DeliveryBody) => void): Promise<SignedReceiver> {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (n++ % 50 === 0) {
        tally.checked++;
        const expected = `sha256=${createHmac('sha256', secret).update(`${req.headers['x-service-timestamp']}.`).update(raw).digest('hex')}`;
        if (expected !== req.headers['x-service-signature']) tally.wrong++;
      }
      onBody(JSON.parse(raw.toString('utf8')) as DeliveryBody);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    })),
  );
}
