// A connection's outgoing messages: a bounded FIFO in front of the socket, and the policy that warns a
// client falling behind and cuts it off before its backlog grows past the spec's buffer (README "Slow clients").

/** Spec "Limits": WebSocket buffer, 1000 messages. */
export const BUFFER_MESSAGES = 1000;

export interface QueueLimits {
  /** Messages waiting (queued and written to the socket but not yet flushed) at which the client is cut off. */
  cutOffAt: number;
  /** At this backlog the client is warned once... */
  warnAt: number;
  /** ...and warned again only after it came back below this. */
  rearmBelow: number;
  /** Messages handed to the socket and not yet flushed to the kernel; the rest wait in the queue. */
  inFlight: number;
}

export const QUEUE_LIMITS: QueueLimits = { cutOffAt: BUFFER_MESSAGES, warnAt: 750, rearmBelow: 250, inFlight: 64 };

export type QueueAction = 'none' | 'warn' | 'cut_off';

/** What a new backlog of `depth` messages calls for, and whether the client now stands warned. */
export function backlogAction(depth: number, warned: boolean, limits: QueueLimits = QUEUE_LIMITS): { action: QueueAction; warned: boolean } {
  if (depth > limits.cutOffAt) return { action: 'cut_off', warned };
  if (depth >= limits.warnAt && !warned) return { action: 'warn', warned: true };
  if (depth < limits.rearmBelow && warned) return { action: 'none', warned: false };
  return { action: 'none', warned };
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
