// A TCP proxy in front of the test broker that a test can cut and restore, to show what a lost broker
// connection does to a producer. Kafka clients connect to the addresses the broker advertises in its
// Metadata answers, so the proxy rewrites the advertised port of Metadata responses to its own; every
// later connection of the client then goes through the proxy too. Nothing else is changed.
import net from 'node:net';

const METADATA = 3;

export interface KafkaProxy {
  /** host:port to give the client as its bootstrap broker. */
  address: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Drops every connection and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startKafkaProxy(broker: string): Promise<KafkaProxy> {
  const [brokerHost, brokerPortText] = broker.split(':') as [string, string];
  const brokerPort = Number(brokerPortText);
  const sockets = new Set<net.Socket>();
  let refusing = false;
  let connections = 0;
  let proxyPort = 0;

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    connections++;
    const upstream = net.connect({ host: brokerHost, port: brokerPort });
    sockets.add(client).add(upstream);
    const requests = new Map<number, { apiKey: number; version: number }>();
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', frames((frame) => {
      requests.set(frame.readInt32BE(8), { apiKey: frame.readInt16BE(4), version: frame.readInt16BE(6) });
      upstream.write(frame);
    }));
    upstream.on('data', frames((frame) => {
      const correlation = frame.readInt32BE(4);
      const request = requests.get(correlation);
      requests.delete(correlation);
      if (request?.apiKey === METADATA) rewriteBrokerPorts(frame, request.version, brokerPort, proxyPort);
      client.write(frame);
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxyPort = (server.address() as net.AddressInfo).port;

  const cut = () => {
    refusing = true;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    address: `127.0.0.1:${proxyPort}`,
    get connections() {
      return connections;
    },
    cut,
    restore() {
      refusing = false;
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Splits a byte stream into whole Kafka frames (4-byte size prefix included). */
function frames(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const size = pending.readInt32BE(0);
      if (pending.length < 4 + size) return;
      onFrame(Buffer.from(pending.subarray(0, 4 + size)));
      pending = pending.subarray(4 + size);
    }
  };
}

/** Metadata response: replaces the port of every advertised broker that is `from` with `to`, in place. */
function rewriteBrokerPorts(frame: Buffer, version: number, from: number, to: number): void {
  const flexible = version >= 9;
  let at = 8; // size, correlation id
  if (flexible) at = skipTaggedFields(frame, at);
  if (version >= 3) at += 4; // throttle_time_ms
  let count: number;
  if (flexible) {
    const [n, next] = readUVarInt(frame, at);
    count = n - 1;
    at = next;
  } else {
    count = frame.readInt32BE(at);
    at += 4;
  }
  for (let i = 0; i < count; i++) {
    at += 4; // node_id
    at = skipString(frame, at, flexible);
    if (frame.readInt32BE(at) === from) frame.writeInt32BE(to, at);
    at += 4;
    if (version >= 1) at = skipString(frame, at, flexible);
    if (flexible) at = skipTaggedFields(frame, at);
  }
}

function skipString(frame: Buffer, at: number, compact: boolean): number {
  if (compact) {
    const [lengthPlusOne, next] = readUVarInt(frame, at);
    return next + Math.max(0, lengthPlusOne - 1);
  }
  const length = frame.readInt16BE(at);
  return at + 2 + Math.max(0, length);
}

function skipTaggedFields(frame: Buffer, at: number): number {
  let [count, next] = readUVarInt(frame, at);
  while (count-- > 0) {
    const [, afterTag] = readUVarInt(frame, next);
    const [size, afterSize] = readUVarInt(frame, afterTag);
    next = afterSize + size;
  }
  return next;
}

function readUVarInt(frame: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = frame.readUInt8(at++);
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7;
  }
}
