// A connection's outgoing messages: a bounded FIFO in front of the socket, and the policy that warns a client
// falling behind and cuts it off before its backlog grows past the spec's buffer (docs/events-and-delivery.md
// "Slow clients").

/** Spec "Limits": WebSocket buffer, 1000 messages. */
export const BUFFER_MESSAGES = 1000;

export interface QueueLimits {
  /** Messages waiting (queued and written to the socket but not yet flushed) at which the client is cut off. */
  cutOffAt: number;
  /**
   * Bytes waiting (queued, and held by the socket: `ws`'s bufferedAmount) past which the client is cut off,
   * however few messages they are: 1000 messages of 8 KiB, several times an ordinary event's size.
   */
  cutOffBytes: number;
  /** At this backlog (messages or bytes) the client is warned once... */
  warnAt: number;
  warnBytes: number;
  /** ...and warned again only after it came back below this (both). */
  rearmBelow: number;
  rearmBytes: number;
  /** Messages handed to the socket and not yet flushed to the kernel; the rest wait in the queue. */
  inFlight: number;
}

const MiB = 1024 * 1024;

export const QUEUE_LIMITS: QueueLimits = { cutOffAt: BUFFER_MESSAGES, cutOffBytes: 8 * MiB, warnAt: 750, warnBytes: 6 * MiB, rearmBelow: 250, rearmBytes: 2 * MiB, inFlight: 64 };

export interface Backlog {
  messages: number;
  bytes: number;
}

export type QueueAction = 'none' | 'warn' | 'cut_off';

/** What a new backlog calls for, and whether the client now stands warned. */
export function backlogAction(depth: Backlog, warned: boolean, limits: QueueLimits = QUEUE_LIMITS): { action: QueueAction; warned: boolean } {
  if (depth.messages > limits.cutOffAt || depth.bytes > limits.cutOffBytes) return { action: 'cut_off', warned };
  if ((depth.messages >= limits.warnAt || depth.bytes >= limits.warnBytes) && !warned) return { action: 'warn', warned: true };
  if (depth.messages < limits.rearmBelow && depth.bytes < limits.rearmBytes && warned) return { action: 'none', warned: false };
  return { action: 'none', warned };
}

/** Why a client was cut off, in the words of its close reason. */
export function cutOffWords(depth: Backlog, limits: QueueLimits = QUEUE_LIMITS): string {
  if (depth.messages > limits.cutOffAt) return `slow consumer: more than ${limits.cutOffAt} messages waiting`;
  return `slow consumer: more than ${limits.cutOffBytes / MiB} MiB waiting`;
}

/** A FIFO with O(1) push and shift (an array with a moving head, compacted now and then). */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.#head < this.#items.length ? this.#items[this.#head] : undefined;
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i] as T;
  }

  /** Keeps only the items `keep` accepts, in order. */
  retain(keep: (item: T) => boolean): void {
    this.#items = this.#items.slice(this.#head).filter(keep);
    this.#head = 0;
  }
}
