// The WebSocket hub of one API instance (docs/events-and-delivery.md "Live event stream"): its own reader of
// security.events feeds every subscribed connection whose filters match; a ring of recent records and reads
// from Kafka by offset resume clients that reconnect, here or from another instance.
import type { ComponentHealth } from '../../platform/health/model.ts';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { systemClock, type Clock } from '../../platform/clock.ts';
import type { TopicCodec } from '../../platform/codec/index.ts';
import { KafkaPartitionReader, type KafkaOptions } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { StreamFilters } from '../../schemas/stream.ts';
import { ConnectionLeases } from './connection-leases.ts';
import { StreamConnection, type ConnectionHost, type Grant, type Outgoing } from './connection.ts';
import type { CopyWindow } from './event-copies.ts';
import { EventTail, type Tailed } from './event-tail.ts';
import { compileFilters } from './filters.ts';
import { textFrame } from './frame.ts';
import { streamMetrics } from './metrics.ts';
import { CLOSE, errorMessage, parseClientMessage, subscribedMessage } from './protocol.ts';
import { readMissed, recentCopies } from './replay-reader.ts';
import { replayMessages } from './replay-messages.ts';
import { ReplayRing } from './replay-ring.ts';
import { ReplaySelection, type Selection } from './replay-selection.ts';
import { decodeHandle, encodeHandle, laterOf, reached, topicTag, type ResumePoint } from './resume-handle.ts';
import { eventMessage, type StreamRecord } from './stream-record.ts';
import { SubscriberGroups } from './subscriber-groups.ts';
import { upgradeClient, type Peer } from './upgrade-request.ts';
import type { Subscription } from './subscription.ts';

export type { Peer } from './upgrade-request.ts';

export interface HubOptions {
  kafka: KafkaOptions;
  /** The security.events topic as deployed (with its prefix). */
  topic: string;
  codec: TopicCodec;
  pool: Pool;
  log: Logger;
  leaseSeconds: number;
  replayRecords: number;
  /** Offsets per partition within which a record of an event id already seen is a copy (event-copies.ts). */
  dedupeRecords: number;
  /** {base_url}, for the GET /v1/events queries of gap messages. */
  publicUrl: string;
  /** Accepts a credential for the stream or throws AppError unauthorized / forbidden / rate_limited. */
  authenticate(token: string, peer: Peer): Promise<Grant>;
  /** Drives heartbeats, pings, credential re-checks and the authentication deadline; tests pass their own. */
  clock?: Clock;
}

/**
 * A handle may be ahead of this instance by what another instance read first (records of a moment); one
 * further ahead than this on a partition is not from this topic as it is (it was recreated, say), and would
 * silence the client until the topic caught up.
 */
const MAX_LEAD = 100_000;

/** A failure of reading the topic shorter than this is a retry, not yet a fault worth reporting. */
const FAILING_FOR_MS = 15_000;

/** Spec "Limits" say nothing of client messages; filters fit easily in this. */
const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;

export class StreamHub {
  readonly #opts: HubOptions;
  readonly #wss: WebSocketServer;
  readonly #tag: number;
  readonly #connections = new Set<StreamConnection>();
  readonly #groups = new SubscriberGroups<StreamConnection>();
  readonly #leases: ConnectionLeases;
  readonly #tailReader: KafkaPartitionReader;
  readonly #replayReader: KafkaPartitionReader;
  readonly #tail: EventTail;
  #position: number[] = [];
  #time = 0;
  #ring: ReplayRing | undefined;
  #copies: CopyWindow | undefined;
  #running = false;
  /** Reads from Kafka for resumes, one at a time. */
  #replays: Promise<unknown> = Promise.resolve();

  constructor(opts: HubOptions) {
    this.#opts = opts;
    this.#tag = topicTag(opts.topic);
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      maxPayload: MAX_CLIENT_MESSAGE_BYTES,
      // Negotiated when the client offers it. A 2 KiB window and small memLevel keep each connection's
      // zlib state near 10 KiB (the defaults need about 300 KiB), so a thousand clients stay affordable.
      perMessageDeflate: { serverMaxWindowBits: 11, zlibDeflateOptions: { memLevel: 4, level: 6 }, threshold: 256, concurrencyLimit: 8 },
    });
    const instanceId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.#leases = new ConnectionLeases(opts.pool, instanceId, opts.leaseSeconds, opts.log);
    this.#tailReader = new KafkaPartitionReader(opts.kafka, opts.topic, `stream-tail-${instanceId}`);
    this.#replayReader = new KafkaPartitionReader(opts.kafka, opts.topic, `stream-replay-${instanceId}`);
    this.#tail = new EventTail(this.#tailReader, opts.codec, opts.log);
  }

  /**
   * Starts reading security.events from its end; connections are accepted from then on. The records just
   * before the end are read first, so a copy of one of them is known for one from the first record on.
   */
  async start(): Promise<void> {
    this.#position = await this.#tail.begin();
    this.#copies = await recentCopies(this.#tailReader, this.#position, this.#opts.dedupeRecords);
    this.#ring = new ReplayRing(this.#opts.replayRecords, this.#position);
    this.#leases.start();
    this.#tail.run((batch) => this.#take(batch));
    this.#running = true;
  }

  /**
   * The hub as a component of the health model (docs/operations.md): down when it is not running or its
   * reads of security.events have failed for FAILING_FOR_MS (clients then receive nothing).
   */
  health(now = Date.now()): ComponentHealth {
    if (!this.#running) return { status: 'down', reason: 'not running' };
    const failing = this.#tail.failing;
    if (failing !== undefined && now - failing.since > FAILING_FOR_MS) {
      return { status: 'down', reason: `reading security.events has failed for ${Math.round((now - failing.since) / 1000)} s: ${failing.error}` };
    }
    return { status: 'ok', reason: '' };
  }

  /** Takes over an upgrade request of the stream's path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { token, peer } = upgradeClient(req);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      if (!this.#running) return ws.close(CLOSE.tryAgainLater, 'the event stream is not running on this instance; reconnect');
      new StreamConnection(ws, socket, this.#host(peer), token);
    });
  }

  /** Closes every connection (1001, with its resume handle) and stops reading. */
  async stop(): Promise<void> {
    this.#running = false;
    for (const connection of this.#connections) connection.close(CLOSE.goingAway, 'server shutting down; reconnect');
    await this.#tail.stop();
    await this.#replays.catch(() => undefined);
    await Promise.all([this.#tailReader.close(), this.#replayReader.close(), this.#leases.stop()]);
    this.#wss.close();
  }

  #host(peer: Peer): ConnectionHost {
    return {
      clock: this.#opts.clock ?? systemClock,
      log: this.#opts.log,
      parse: parseClientMessage,
      authenticate: (token) => this.#opts.authenticate(token, peer),
      acquire: (credentialId) => this.#leases.acquire(credentialId),
      release: (leaseId) => this.#leases.release(leaseId),
      opened: (c) => {
        this.#connections.add(c);
        streamMetrics.clients.set(this.#connections.size);
      },
      closed: (c) => {
        this.#connections.delete(c);
        if (c.subscription) this.#groups.remove(c.subscription.group, c);
        streamMetrics.clients.set(this.#connections.size);
      },
      unsubscribed: (c, sub) => this.#groups.remove(sub.group, c),
      subscribe: (c, filters, resume) => this.#subscribe(c, filters, resume),
      updateFilters: (c, filters) => this.#updateFilters(c, filters),
      handleFor: (c) => this.#handleFor(c.subscription),
    };
  }

  #point(): ResumePoint {
    return { offsets: [...this.#position], time: this.#time };
  }

  /** The handle at the hub's position, never below what the subscription already has from elsewhere. */
  #handleFor(sub: Subscription | undefined): string {
    if (sub?.floor && reached(this.#position, sub.floor)) delete sub.floor;
    const point = sub?.floor ? laterOf(this.#point(), { offsets: sub.floor, time: 0 }) : this.#point();
    return encodeHandle(point, this.#tag);
  }

  #take(batch: Tailed[]): void {
    const ring = this.#ring as ReplayRing;
    const copies = this.#copies as CopyWindow;
    const oldest = batch[0];
    if (oldest) streamMetrics.dispatchDelay.observe(Math.max(0, Date.now() - oldest.time) / 1000);
    for (const t of batch) {
      this.#position[t.partition] = t.offset + 1;
      if (t.time > this.#time) this.#time = t.time;
      // A copy is neither sent nor kept for resumes: every client had the first one (or its filters left it out).
      if (copies.isCopy(t.partition, t.offset, t.identity)) {
        streamMetrics.copies.inc();
        continue;
      }
      if (!t.record) continue;
      ring.push(t.record);
      this.#dispatch(t.record);
    }
  }

  /** One `event` message per record, serialized and framed once for every client without a floor. */
  #dispatch(record: StreamRecord): void {
    let shared: Outgoing | undefined;
    this.#groups.forEachMatching(record.event, (connection) => {
      const sub = connection.subscription as Subscription;
      if (sub.floor) {
        if (record.offset < (sub.floor[record.partition] ?? 0)) return;
        const resume = this.#handleFor(sub);
        if (sub.floor) return connection.sendEvent({ data: eventMessage(record, resume), resume, event: true });
      }
      if (!shared) {
        const resume = encodeHandle(this.#point(), this.#tag);
        const data = Buffer.from(eventMessage(record, resume));
        shared = { data, frame: textFrame(data), resume, event: true };
      }
      connection.sendEvent(shared);
    });
  }

  #subscribe(connection: StreamConnection, filters: StreamFilters, resume: string | undefined): void {
    let from: ResumePoint | undefined;
    if (resume !== undefined) {
      const decoded = decodeHandle(resume, this.#tag, this.#position.length);
      if (!decoded.ok) {
        streamMetrics.resumes.inc({ outcome: 'invalid', source: 'none' });
        return connection.send(errorMessage('invalid_resume', `${decoded.reason}; subscribe again without "resume", or with a handle this service sent`));
      }
      from = decoded.point;
      if (from.offsets.some((o, p) => o - (this.#position[p] ?? 0) > MAX_LEAD)) {
        streamMetrics.resumes.inc({ outcome: 'invalid', source: 'none' });
        return connection.send(errorMessage('invalid_resume', 'the resume handle is far ahead of the event topic (was the topic recreated?); subscribe again without "resume"'));
      }
    }
    const sub: Subscription = { filters, matches: compileFilters(filters), group: this.#groups.add(filters, connection) };
    if (from && !reached(this.#position, from.offsets)) sub.floor = [...from.offsets];
    connection.subscription = sub;
    if (!from) {
      const handle = this.#handleFor(sub);
      return connection.send(subscribedMessage(filters, handle), handle);
    }
    // Until the replay is sent, the client's own handle is the one that holds.
    connection.send(subscribedMessage(filters, resume as string), resume);
    this.#resume(connection, sub, from);
  }

  #resume(connection: StreamConnection, sub: Subscription, from: ResumePoint): void {
    const to = this.#point();
    const ring = this.#ring as ReplayRing;
    const finish = (selection: Selection, source: 'memory' | 'kafka') => {
      if (connection.subscription !== sub) return;
      streamMetrics.resumes.inc({ outcome: selection.gap ? 'gap' : 'complete', source });
      streamMetrics.replayed.inc(selection.replay.length);
      const now = (this.#opts.clock ?? systemClock).now();
      connection.endReplay(replayMessages(selection, { from, to, filters: sub.filters, tag: this.#tag, baseUrl: this.#opts.publicUrl, now }));
    };
    connection.beginReplay();
    if (ring.covers(from.offsets)) {
      const selection = new ReplaySelection(from.offsets);
      for (const record of ring.since(from.offsets)) if (sub.matches(record.event)) selection.add(record);
      return finish(selection.result(), 'memory');
    }
    const read = this.#replays.then(() => readMissed(this.#replayReader, this.#opts.codec, { from: from.offsets, to: to.offsets, matches: sub.matches, dedupeRecords: this.#opts.dedupeRecords }));
    this.#replays = read.then(
      (selection) => finish(selection, 'kafka'),
      (err) => {
        this.#opts.log.warn({ err }, 'stream: missed events could not be read from Kafka');
        connection.endReplay([{ data: errorMessage('service_unavailable', 'the missed events could not be read now; reconnect later with the same resume handle') }]);
        connection.close(CLOSE.tryAgainLater, 'missed events could not be read; reconnect');
      },
    );
  }

  #updateFilters(connection: StreamConnection, filters: StreamFilters): void {
    const sub = connection.subscription as Subscription;
    this.#groups.remove(sub.group, connection);
    sub.group = this.#groups.add(filters, connection);
    sub.filters = filters;
    sub.matches = compileFilters(filters);
    const handle = this.#handleFor(sub);
    connection.send(subscribedMessage(filters, handle), handle);
  }
}
