import { describe, expect, it } from 'vitest';
import { Fifo, QUEUE_LIMITS, backlogAction } from '../../../../delivery/stream/send-queue.ts';

describe('the per-connection queue policy', () => {
  it('holds the spec buffer of 1000 messages and cuts off past it', () => {
    expect(QUEUE_LIMITS.cutOffAt).toBe(1000);
    expect(backlogAction(1000, true).action).toBe('none');
    expect(backlogAction(1001, true).action).toBe('cut_off');
  });

  it('warns once as the backlog passes the warning mark, and again only after it came back down', () => {
    let warned = false;
    const actions: string[] = [];
    for (const depth of [10, 749, 750, 800, 900, 400, 760, 100, 760]) {
      const next = backlogAction(depth, warned);
      warned = next.warned;
      actions.push(next.action);
    }
    expect(actions).toEqual(['none', 'none', 'warn', 'none', 'none', 'none', 'none', 'none', 'warn']);
  });

  it('warns before it cuts off, even when a burst jumps past the warning mark', () => {
    expect(backlogAction(990, false)).toEqual({ action: 'warn', warned: true });
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
