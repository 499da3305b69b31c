// One client of the stream: authentication (the `token` query parameter, or an `auth` first message within
// AUTH_DEADLINE_MS), its slot under the per-credential limit, the bounded queue in front of its socket,
// the heartbeat, ping and credential re-check, and the close codes of protocol.ts.
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/log.ts';
import type { StreamFilters } from '../../schemas/stream.ts';
import type { Acquired } from './connection-leases.ts';
import { beatAction, untilNextBeat, uptimeSeconds } from './heartbeat.ts';
import { streamMetrics } from './metrics.ts';
import { INBOUND_RATE, fullBucket, takeToken, type Bucket } from './inbound-rate.ts';
import { AUTH_DEADLINE_MS, CLOSE, authenticatedMessage, closeReason, errorMessage, heartbeatMessage, slowConsumerWarning, unsubscribedMessage, type ClientMessage, type ErrorCode, type Parsed } from './protocol.ts';
import { QUEUE_LIMITS, backlogAction, cutOffWords, Fifo } from './send-queue.ts';
import type { Subscription } from './subscription.ts';

/** A credential the API layer accepted for the stream (it has events:read). */
export interface Grant {
  credentialId: string;
  expiresAt: Date | null;
}

/**
 * What a connection needs from its hub. `F` and `S` are the filters and the subscription of the hub's stream
 * (the event stream's by default; delivery/positions/ has its own).
 */
export interface ConnectionHost<F = StreamFilters, S = Subscription> {
  readonly clock: Clock;
  /** The stream's client messages: the shared envelope with the stream's own filters (protocol.ts parseMessageWith). */
  parse(text: string): Parsed<F>;
  readonly log: Logger;
  /** Throws AppError unauthorized, forbidden or rate_limited; anything else means "try again later". */
  authenticate(token: string): Promise<Grant>;
  acquire(credentialId: string): Promise<Acquired>;
  release(leaseId: string): Promise<void>;
  opened(connection: StreamConnection<F, S>): void;
  closed(connection: StreamConnection<F, S>): void;
  subscribe(connection: StreamConnection<F, S>, filters: F, resume: string | undefined): void;
  updateFilters(connection: StreamConnection<F, S>, filters: F): void;
  unsubscribed(connection: StreamConnection<F, S>, subscription: S): void;
  /** The handle that holds for this connection once everything queued so far is sent. */
  handleFor(connection: StreamConnection<F, S>): string;
}

/** A message waiting for the socket. Event messages of the live stream are one object shared by every client that takes them. */
export interface Outgoing {
  data: string | Buffer;
  /** `data` framed (frame.ts), written as it is to clients without compression. */
  frame?: Buffer;
  /** The handle that holds once the client has this message (events, and acks and heartbeats of a subscription). */
  resume?: string;
  event?: boolean;
  replay?: boolean;
}

const SEND_OPTIONS = { binary: false };
const EVENT_LABELS = { type: 'event' };
const CONTROL_LABELS = { type: 'control' };

/** Client messages that arrive while the credential is being checked wait, up to this many. */
const MAX_EARLY_MESSAGES = 16;

/** What a queued message costs in memory, near enough: its frame, or its text. */
function sizeOf(item: Outgoing): number {
  return item.frame?.length ?? item.data.length;
}

export class StreamConnection<F = StreamFilters, S = Subscription> {
  readonly connectedAt: number;
  subscription: S | undefined;
  #state: 'awaiting_credential' | 'verifying' | 'open' | 'closing' = 'awaiting_credential';
  #registered = false;
  #credential = '';
  #leaseId: string | undefined;
  #early: string[] = [];
  #cancelTimer: (() => void) | undefined;
  #pingUnanswered = false;
  readonly #queue = new Fifo<Outgoing>();
  /** While a resume reads the missed range, everything else waits here, behind the replay. */
  #held: Fifo<Outgoing> | undefined;
  #replayQueued = 0;
  /** Bytes of the messages in #queue and #held that count against the backlog (not the replay's). */
  #waitingBytes = 0;
  #inFlight = 0;
  #warned = false;
  #eventsSent = 0;
  #sentResume: string | undefined;
  #flushQueued = false;
  /** Without permessage-deflate, frames built once by the hub go to the socket as they are. */
  readonly #plain: boolean;
  #inbound: Bucket;

  /** `socket` is the one `ws` was upgraded on: writes are corked on it, so a burst leaves in one system call. */
  constructor(private readonly ws: WebSocket, private readonly socket: Duplex, private readonly host: ConnectionHost<F, S>, queryToken: string | null) {
    this.connectedAt = host.clock.now();
    this.#plain = ws.extensions === '';
    this.#inbound = fullBucket(this.connectedAt);
    ws.on('message', (data, isBinary) => this.#receive(isBinary ? undefined : String(data)));
    ws.on('pong', () => (this.#pingUnanswered = false));
    ws.on('close', () => this.#onClose());
    ws.on('error', (err) => host.log.debug({ err }, 'stream socket error'));
    if (queryToken !== null) void this.#authenticate(queryToken);
    else this.#cancelTimer = host.clock.after(AUTH_DEADLINE_MS, () => this.#refuse('unauthorized', `no credential within ${AUTH_DEADLINE_MS / 1000} s: send {"type":"auth","token":"..."} first`, CLOSE.unauthorized));
  }

  get open(): boolean {
    return this.#state === 'open';
  }

  /** A control message (ack, error, heartbeat), in order with the events. */
  send(text: string, resume?: string): void {
    this.#enqueue(resume === undefined ? { data: text } : { data: text, resume });
  }

  /** An event message (`event: true`), with the handle that holds once the client has it. */
  sendEvent(item: Outgoing): void {
    this.#enqueue(item);
  }

  /** From now on nothing is sent until `endReplay`, which puts the replay first. */
  beginReplay(): void {
    this.#held ??= new Fifo();
  }

  /** Sends the replay (gap message, missed events, `resumed`), then what waited behind it. */
  endReplay(messages: { data: string; resume?: string; event?: boolean }[]): void {
    const held = this.#held;
    this.#held = undefined;
    if (this.#state !== 'open') return;
    for (const m of messages) {
      this.#queue.push({ ...m, replay: true });
      this.#replayQueued++;
    }
    for (const item of held ?? []) this.#queue.push(item);
    this.#checkBacklog();
    this.#drain();
  }

  /** Closes with a code and reason; the reason carries the resume handle when the client has a subscription. */
  close(code: number, words: string): void {
    if (this.#state === 'closing') return;
    const resume = this.subscription ? this.#sentResume : undefined;
    this.#state = 'closing';
    this.#cancelTimer?.();
    this.ws.close(code, closeReason(words, resume));
  }

  /** Every message from the client passes the rate limit first, whatever it holds. */
  #receive(text: string | undefined): void {
    if (this.#state === 'closing') return;
    const bucket = takeToken(this.#inbound, this.host.clock.now());
    if (bucket === undefined) {
      streamMetrics.drops.inc({ reason: 'message_rate' });
      return this.#refuse('too_many_messages', `more than ${INBOUND_RATE.burst} messages at once or ${INBOUND_RATE.perSecond} a second`, CLOSE.tooManyMessages);
    }
    this.#inbound = bucket;
    this.#onMessage(text);
  }

  #onMessage(text: string | undefined): void {
    if (this.#state === 'closing') return;
    if (text === undefined) return this.#error('invalid_message', 'binary messages are not part of the protocol; send JSON text');
    if (this.#state === 'verifying') {
      if (this.#early.length >= MAX_EARLY_MESSAGES) return this.#refuse('invalid_message', 'too many messages before authentication finished', CLOSE.unauthorized);
      this.#early.push(text);
      return;
    }
    const parsed = this.host.parse(text);
    if (this.#state === 'awaiting_credential') {
      if (parsed.ok && parsed.message.type === 'auth') return void this.#authenticate(parsed.message.token);
      return this.#refuse('unauthorized', 'authenticate first: send {"type":"auth","token":"<API key or access token>"}, or connect with ?token=', CLOSE.unauthorized);
    }
    if (!parsed.ok) return this.#error(parsed.code, parsed.message);
    this.#handle(parsed.message);
  }

  #handle(message: ClientMessage<F>): void {
    switch (message.type) {
      case 'auth':
        return this.#error('already_authenticated', 'this connection is already authenticated');
      case 'subscribe':
        if (this.subscription) return this.#error('already_subscribed', 'already subscribed: send update_filters to change the filters, or unsubscribe first');
        return this.host.subscribe(this, message.filters, message.resume);
      case 'update_filters':
        if (!this.subscription) return this.#error('not_subscribed', 'not subscribed: send subscribe first');
        return this.host.updateFilters(this, message.filters);
      case 'unsubscribe':
        if (!this.subscription) return this.#error('not_subscribed', 'not subscribed');
        this.host.unsubscribed(this, this.subscription);
        this.subscription = undefined;
        this.#held = undefined;
        this.#queue.retain((item) => !item.event);
        this.#replayQueued = 0;
        this.#waitingBytes = 0;
        for (const item of this.#queue) {
          if (item.replay) this.#replayQueued++;
          else this.#waitingBytes += sizeOf(item);
        }
        return this.send(unsubscribedMessage());
    }
  }

  async #authenticate(token: string): Promise<void> {
    this.#cancelTimer?.();
    this.#state = 'verifying';
    this.#credential = token;
    let grant: Grant;
    let lease: Acquired;
    try {
      grant = await this.host.authenticate(token);
      lease = await this.host.acquire(grant.credentialId);
    } catch (err) {
      return this.#refused(err);
    }
    if (this.#state !== 'verifying') {
      if (lease.ok) await this.host.release(lease.id);
      return;
    }
    if (!lease.ok) {
      streamMetrics.refused.inc({ reason: 'connection_limit' });
      return this.#refuse('connection_limit', `this credential already has ${lease.inUse} stream connections (at most 10, across all instances); close one first`, CLOSE.tooMany);
    }
    this.#leaseId = lease.id;
    this.#state = 'open';
    this.#registered = true;
    this.host.opened(this);
    this.send(authenticatedMessage(grant.credentialId, grant.expiresAt));
    this.#scheduleBeat();
    for (const text of this.#early.splice(0)) this.#onMessage(text);
  }

  #refused(err: unknown): void {
    const known = err instanceof AppError ? err.code : undefined;
    streamMetrics.refused.inc({ reason: known ?? 'unavailable' });
    if (known === 'unauthorized') return this.#refuse('unauthorized', err instanceof AppError ? err.message : '', CLOSE.unauthorized);
    if (known === 'forbidden') return this.#refuse('forbidden', (err as AppError).message, CLOSE.forbidden);
    if (known === 'rate_limited') return this.#refuse('rate_limited', (err as AppError).message, CLOSE.tooMany);
    this.host.log.warn({ err }, 'stream authentication failed');
    this.#refuse('service_unavailable', 'the credential could not be checked now; reconnect with backoff', CLOSE.tryAgainLater);
  }

  /** An error message, then the close. */
  #refuse(code: ErrorCode, message: string, closeCode: number): void {
    if (this.#state === 'closing') return;
    this.ws.send(errorMessage(code, message));
    this.close(closeCode, message);
  }

  #error(code: ErrorCode, message: string): void {
    this.send(errorMessage(code, message));
  }

  #scheduleBeat(): void {
    const { clock } = this.host;
    this.#cancelTimer = clock.after(untilNextBeat(this.connectedAt, clock.now()), () => this.#beat());
  }

  #beat(): void {
    if (this.#state !== 'open') return;
    if (beatAction(this.#pingUnanswered) === 'drop') {
      streamMetrics.drops.inc({ reason: 'ping_timeout' });
      this.#state = 'closing';
      this.ws.terminate();
      return;
    }
    const now = this.host.clock.now();
    this.#pingUnanswered = true;
    this.ws.ping();
    this.send(heartbeatMessage(now, this.#eventsSent, uptimeSeconds(this.connectedAt, now), this.subscription ? this.host.handleFor(this) : undefined));
    this.#scheduleBeat();
    void this.#recheckCredential();
  }

  /** An expired or revoked credential ends the connection at the next beat. */
  async #recheckCredential(): Promise<void> {
    try {
      await this.host.authenticate(this.#credential);
    } catch (err) {
      const code = err instanceof AppError ? err.code : undefined;
      if (code !== 'unauthorized' && code !== 'forbidden') return; // Postgres down or throttled: check again next beat.
      streamMetrics.drops.inc({ reason: 'credential' });
      const words = code === 'unauthorized' ? 'the credential was revoked or has expired' : (err as AppError).message;
      this.#refuse(code, words, code === 'unauthorized' ? CLOSE.unauthorized : CLOSE.forbidden);
    }
  }

  #enqueue(item: Outgoing): void {
    if (this.#state !== 'open') return;
    (this.#held ?? this.#queue).push(item);
    this.#waitingBytes += sizeOf(item);
    if (this.#checkBacklog()) this.#flushSoon();
  }

  /**
   * Writes what is queued once the code that queued it is done (the hub dispatching a whole fetch), so
   * the messages of a burst share one write instead of one system call each: the busier the hub, the
   * larger its fetches and the fewer writes per message.
   */
  #flushSoon(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => {
      this.#flushQueued = false;
      this.#drain();
    });
  }

  /**
   * Warns or cuts off a client whose backlog grows, in messages or in bytes (what waits here plus what the
   * socket holds); replayed messages (at most 1000) do not count.
   */
  #checkBacklog(): boolean {
    const messages = this.#queue.length - this.#replayQueued + (this.#held?.length ?? 0) + this.#inFlight;
    const depth = { messages, bytes: this.#waitingBytes + this.ws.bufferedAmount };
    const { action, warned } = backlogAction(depth, this.#warned);
    this.#warned = warned;
    if (action === 'warn') this.ws.send(slowConsumerWarning(depth, QUEUE_LIMITS));
    if (action !== 'cut_off') return true;
    streamMetrics.drops.inc({ reason: 'slow_consumer' });
    this.#queue.retain(() => false);
    this.#held = undefined;
    this.#waitingBytes = 0;
    this.close(CLOSE.slowConsumer, cutOffWords(depth));
    return false;
  }

  #drain(): void {
    this.socket.cork();
    try {
      this.#send();
    } finally {
      this.socket.uncork();
    }
  }

  #send(): void {
    let events = 0;
    let control = 0;
    while (this.#held === undefined && this.#inFlight < QUEUE_LIMITS.inFlight && this.#state === 'open') {
      const item = this.#queue.shift();
      if (item === undefined) break;
      if (item.replay) this.#replayQueued--;
      else this.#waitingBytes -= sizeOf(item);
      if (item.resume !== undefined) this.#sentResume = item.resume;
      if (item.event) events++;
      else control++;
      this.#inFlight++;
      // Whole frames, so they never interleave with the library's own (pings, closes): it writes
      // synchronously to the socket when no compression is negotiated.
      if (item.frame !== undefined && this.#plain && this.ws.readyState === WebSocket.OPEN) this.socket.write(item.frame, this.#flushed);
      else this.ws.send(item.data, SEND_OPTIONS, this.#flushed);
    }
    this.#eventsSent += events;
    if (events > 0) streamMetrics.sent.inc(EVENT_LABELS, events);
    if (control > 0) streamMetrics.sent.inc(CONTROL_LABELS, control);
  }

  readonly #flushed = (): void => {
    this.#inFlight--;
    this.#checkBacklog();
    this.#flushSoon();
  };

  #onClose(): void {
    this.#state = 'closing';
    this.#cancelTimer?.();
    this.#held = undefined;
    if (this.#registered) this.host.closed(this);
    this.#registered = false;
    if (this.#leaseId !== undefined) void this.host.release(this.#leaseId);
    this.#leaseId = undefined;
  }
}
