import { describe, expect, it } from 'vitest';
import { Fifo, QUEUE_LIMITS, backlogAction, cutOffWords } from '../../../../delivery/stream/send-queue.ts';

const messages = (n: number) => ({ messages: n, bytes: n * 1_000 });

describe('the per-connection queue policy', () => {
  it('holds the spec buffer of 1000 messages and cuts off past it', () => {
    expect(QUEUE_LIMITS.cutOffAt).toBe(1000);
    expect(backlogAction(messages(1000), true).action).toBe('none');
    expect(backlogAction(messages(1001), true).action).toBe('cut_off');
  });

  it('cuts off past 8 MiB waiting however few messages hold them, and words the reason by the limit passed', () => {
    const bytes = 8 * 1024 * 1024;
    expect(backlogAction({ messages: 10, bytes }, true).action).toBe('none');
    expect(backlogAction({ messages: 10, bytes: bytes + 1 }, true).action).toBe('cut_off');
    expect(backlogAction({ messages: 10, bytes: 6 * 1024 * 1024 }, false)).toEqual({ action: 'warn', warned: true });
    // Rearmed only when both messages and bytes came back down.
    expect(backlogAction({ messages: 10, bytes: 3 * 1024 * 1024 }, true)).toEqual({ action: 'none', warned: true });
    expect(backlogAction({ messages: 10, bytes: 1024 }, true)).toEqual({ action: 'none', warned: false });
    expect(cutOffWords({ messages: 10, bytes: bytes + 1 })).toBe('slow consumer: more than 8 MiB waiting');
    expect(cutOffWords(messages(1001))).toBe('slow consumer: more than 1000 messages waiting');
  });

  it('warns once as the backlog passes the warning mark, and again only after it came back down', () => {
    let warned = false;
    const actions: string[] = [];
    for (const depth of [10, 749, 750, 800, 900, 400, 760, 100, 760]) {
      const next = backlogAction(messages(depth), warned);
      warned = next.warned;
      actions.push(next.action);
    }
    expect(actions).toEqual(['none', 'none', 'warn', 'none', 'none', 'none', 'none', 'none', 'warn']);
  });

  it('warns before it cuts off, even when a burst jumps past the warning mark', () => {
    expect(backlogAction(messages(990), false)).toEqual({ action: 'warn', warned: true });
  });
});

describe('Fifo', () => {
  it('keeps order across many pushes and shifts', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      fifo.push(i);
      if (i % 3 === 0) out.push(fifo.shift() as number);
    }
    while (fifo.length > 0) out.push(fifo.shift() as number);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(fifo.shift()).toBeUndefined();
  });

  it('iterates and retains in order', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 10; i++) fifo.push(i);
    fifo.shift();
    fifo.retain((n) => n % 2 === 0);
    expect([...fifo]).toEqual([2, 4, 6, 8]);
  });
});
