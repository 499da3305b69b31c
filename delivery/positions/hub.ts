// The position stream of one API instance (docs/console.md "Position stream"): its own reader of
// ais.positions keeps every vessel's newest position; once a second the vessels that moved go to each
// subscriber whose filters (bounding box, MMSIs) they match, one message per subscriber, so no vessel is
// sent more than once a second however often it reports. Connections, authentication, heartbeats, limits
// and close codes are the event stream's (delivery/stream/connection.ts); handles are its resume handles
// over the offsets of ais.positions.
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
import type { PositionFilters } from '../../schemas/position-stream.ts';
import { ConnectionLeases } from '../stream/connection-leases.ts';
import { StreamConnection, type ConnectionHost, type Grant } from '../stream/connection.ts';
import { upgradeClient, type Peer } from '../stream/upgrade-request.ts';
import { CLOSE, errorMessage, parseMessageWith, resumedMessage } from '../stream/protocol.ts';
import { decodeHandle, encodeHandle, laterOf, reached, topicTag, type ResumePoint } from '../stream/resume-handle.ts';
import { compilePositionFilters, positionFilterProblems, type PositionMatcher } from './filters.ts';
import { LatestPositions, type HeldPosition } from './latest-positions.ts';
import { positionsGapMessage, positionsMessage, positionsSubscribedMessage } from './messages.ts';
import { positionMetrics } from './metrics.ts';
import { PositionTail, startingOffsets } from './position-tail.ts';

export interface PositionSubscription {
  filters: PositionFilters;
  matches: PositionMatcher;
  /** Vessels within the filters whose position the client was sent: one leaving the box is named in `left`. */
  shown: Set<number>;
  /** As the event stream's: offsets another instance already offered the client; lower ones are not sent. */
  floor?: number[];
}

type Connection = StreamConnection<PositionFilters, PositionSubscription>;

export interface PositionHubOptions {
  kafka: KafkaOptions;
  /** The ais.positions topic as deployed (with its prefix). */
  topic: string;
  codec: TopicCodec;
  pool: Pool;
  log: Logger;
  leaseSeconds: number;
  /** Records per partition read before the end at start-up, so the first subscribers see vessels already under way. */
  warmupRecords: number;
  /** Vessels not heard from for this long are forgotten (ms). */
  maxAgeMs: number;
  /** {base_url}, for the vessel API's address in gap messages. */
  publicUrl: string;
  /** Accepts a credential (maritime:read) or throws AppError unauthorized / forbidden / rate_limited. */
  authenticate(token: string, peer: Peer): Promise<Grant>;
  clock?: Clock;
  /** Between flushes; a vessel's position reaches a subscriber at most once per interval. */
  intervalMs?: number;
}

/** As the event stream's (hub.ts): a handle further ahead than this is not from this topic as it is. */
const MAX_LEAD = 1_000_000;

export class PositionHub {
  readonly #opts: PositionHubOptions;
  readonly #wss: WebSocketServer;
  readonly #tag: number;
  readonly #connections = new Set<Connection>();
  readonly #leases: ConnectionLeases;
  readonly #reader: KafkaPartitionReader;
  readonly #tail: PositionTail;
  #latest: LatestPositions | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(opts: PositionHubOptions) {
    this.#opts = opts;
    this.#tag = topicTag(opts.topic);
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      maxPayload: 64 * 1024,
      perMessageDeflate: { serverMaxWindowBits: 11, zlibDeflateOptions: { memLevel: 4, level: 6 }, threshold: 256, concurrencyLimit: 8 },
    });
    const instanceId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    // The same table as the event stream's: a credential's 10 connections count both streams together.
    this.#leases = new ConnectionLeases(opts.pool, instanceId, opts.leaseSeconds, opts.log);
    this.#reader = new KafkaPartitionReader(opts.kafka, opts.topic, `positions-tail-${instanceId}`);
    const clock = opts.clock ?? systemClock;
    this.#tail = new PositionTail(this.#reader, opts.codec, opts.log, () => clock.now());
  }

  async start(): Promise<void> {
    const from = await startingOffsets(this.#reader, this.#opts.warmupRecords);
    this.#latest = new LatestPositions(from, this.#opts.maxAgeMs);
    this.#tail.run(from, this.#latest);
    this.#leases.start();
    this.#timer = setInterval(() => this.#flush(), this.#opts.intervalMs ?? 1000);
    this.#timer.unref();
    this.#running = true;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { token, peer } = upgradeClient(req);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      if (!this.#running) return ws.close(CLOSE.tryAgainLater, 'the position stream is not running on this instance; reconnect');
      new StreamConnection(ws, socket, this.#host(peer), token);
    });
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#timer);
    for (const connection of this.#connections) connection.close(CLOSE.goingAway, 'server shutting down; reconnect');
    await this.#tail.stop();
    await Promise.all([this.#reader.close(), this.#leases.stop()]);
    this.#wss.close();
  }

  #host(peer: Peer): ConnectionHost<PositionFilters, PositionSubscription> {
    return {
      clock: this.#opts.clock ?? systemClock,
      log: this.#opts.log,
      parse: (text) => parseMessageWith<PositionFilters>(text, positionFilterProblems),
      authenticate: (token) => this.#opts.authenticate(token, peer),
      acquire: (credentialId) => this.#leases.acquire(credentialId),
      release: (leaseId) => this.#leases.release(leaseId),
      opened: (c) => {
        this.#connections.add(c);
        positionMetrics.clients.set(this.#connections.size);
      },
      closed: (c) => {
        this.#connections.delete(c);
        positionMetrics.clients.set(this.#connections.size);
      },
      unsubscribed: () => undefined,
      subscribe: (c, filters, resume) => this.#subscribe(c, filters, resume),
      updateFilters: (c, filters) => this.#updateFilters(c, filters),
      handleFor: (c) => this.#handleFor(c.subscription),
    };
  }

  get #held(): LatestPositions {
    return this.#latest as LatestPositions;
  }

  #point(): ResumePoint {
    return { offsets: this.#held.position, time: (this.#opts.clock ?? systemClock).now() };
  }

  #handleFor(sub: PositionSubscription | undefined): string {
    if (sub?.floor && reached(this.#held.position, sub.floor)) delete sub.floor;
    const point = sub?.floor ? laterOf(this.#point(), { offsets: sub.floor, time: 0 }) : this.#point();
    return encodeHandle(point, this.#tag);
  }

  /** Once an interval: the vessels that moved go to every subscriber they concern, one message each. */
  #flush(): void {
    const held = this.#held;
    const changed = held.flush((this.#opts.clock ?? systemClock).now());
    positionMetrics.vessels.set(held.size);
    if (changed.length === 0) return;
    positionMetrics.flushed.inc(changed.length);
    let everything: string | undefined;
    for (const connection of this.#connections) {
      const sub = connection.subscription;
      if (!sub || !connection.open) continue;
      // A subscriber without filters and without a floor takes every change: one message shared by all of them.
      if (!sub.floor && !sub.filters.bbox && !sub.filters.mmsi?.length) {
        for (const p of changed) sub.shown.add(p.mmsi);
        everything ??= positionsMessage(changed.map((p) => p.json), [], this.#handleFor(undefined));
        connection.sendEvent({ data: everything, resume: this.#handleFor(undefined), event: true });
        continue;
      }
      const { positions, left } = this.#select(sub, changed);
      if (positions.length === 0 && left.length === 0) continue;
      const resume = this.#handleFor(sub);
      connection.sendEvent({ data: positionsMessage(positions, left, resume), resume, event: true });
    }
  }

  /** The positions of `changed` within the subscription's filters, and the vessels that left them. */
  #select(sub: PositionSubscription, changed: Iterable<HeldPosition>): { positions: string[]; left: number[] } {
    const positions: string[] = [];
    const left: number[] = [];
    for (const p of changed) {
      if (sub.floor && p.offset < (sub.floor[p.partition] ?? 0)) continue;
      if (sub.matches(p.mmsi, p.lat, p.lon)) {
        positions.push(p.json);
        sub.shown.add(p.mmsi);
      } else if (sub.shown.delete(p.mmsi)) {
        left.push(p.mmsi);
      }
    }
    return { positions, left };
  }

  /** Every held vessel within the subscription's filters, as a snapshot that replaces what the client shows. */
  #snapshot(connection: Connection, sub: PositionSubscription): number {
    sub.shown.clear();
    const { positions } = this.#select(sub, this.#held.all());
    const resume = this.#handleFor(sub);
    connection.sendEvent({ data: positionsMessage(positions, [], resume, true), resume, event: true });
    return positions.length;
  }

  #subscribe(connection: Connection, filters: PositionFilters, resume: string | undefined): void {
    const position = this.#held.position;
    let from: ResumePoint | undefined;
    if (resume !== undefined) {
      const decoded = decodeHandle(resume, this.#tag, position.length);
      if (!decoded.ok) {
        positionMetrics.resumes.inc({ outcome: 'invalid' });
        return connection.send(errorMessage('invalid_resume', `${decoded.reason}; subscribe again without "resume", or with a handle this service's position stream sent`));
      }
      from = decoded.point;
      if (from.offsets.some((o, p) => o - (position[p] ?? 0) > MAX_LEAD)) {
        positionMetrics.resumes.inc({ outcome: 'invalid' });
        return connection.send(errorMessage('invalid_resume', 'the resume handle is far ahead of ais.positions (was the topic recreated?); subscribe again without "resume"'));
      }
    }
    const sub: PositionSubscription = { filters, matches: compilePositionFilters(filters), shown: new Set() };
    connection.subscription = sub;
    if (!from) {
      connection.send(positionsSubscribedMessage(filters, this.#handleFor(sub)));
      this.#snapshot(connection, sub);
      return;
    }
    if (!reached(position, from.offsets)) sub.floor = [...from.offsets];
    connection.send(positionsSubscribedMessage(filters, resume as string), resume);
    if (!this.#held.covers(from.offsets)) {
      positionMetrics.resumes.inc({ outcome: 'gap' });
      connection.send(positionsGapMessage('the resume handle is older than the reports this instance read', `${this.#opts.publicUrl}/v1/vessels`));
      const sent = this.#snapshot(connection, sub);
      const handle = this.#handleFor(sub);
      return connection.send(resumedMessage(sent, handle), handle);
    }
    positionMetrics.resumes.inc({ outcome: 'complete' });
    // The client held every vessel within its filters; those that moved since its handle come now, and those
    // that moved out of the filters are named as having left.
    for (const p of this.#held.all()) if (sub.matches(p.mmsi, p.lat, p.lon)) sub.shown.add(p.mmsi);
    const missed = this.#held.since(from.offsets);
    const { positions, left } = this.#select(sub, missed);
    for (const p of missed) if (!sub.matches(p.mmsi, p.lat, p.lon) && !left.includes(p.mmsi)) left.push(p.mmsi);
    const handle = this.#handleFor(sub);
    if (positions.length > 0 || left.length > 0) connection.sendEvent({ data: positionsMessage(positions, left, handle), resume: handle, event: true });
    connection.send(resumedMessage(positions.length, handle), handle);
  }

  #updateFilters(connection: Connection, filters: PositionFilters): void {
    const sub = connection.subscription as PositionSubscription;
    sub.filters = filters;
    sub.matches = compilePositionFilters(filters);
    connection.send(positionsSubscribedMessage(filters, this.#handleFor(sub)));
    this.#snapshot(connection, sub);
  }
}
