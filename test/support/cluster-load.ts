// The load and the watch of the three-broker fault tests (kafka-failover, kafka-quorum-loss): steady HTTP
// ingest of new vessels whose positions fall in one zone (so every accepted sentence makes one zone entry),
// and /readyz polled four times a second, each answer kept with its time.
import { checksum, classA, message } from '../unit/ingest/ais/nmea-builder.ts';

/** A position of `mmsi` inside the zone around `center`, timed by a tag block a little before now (the receiver's clock). */
export function positionLine(center: [number, number], mmsi: number): string {
  const fields = `c:${Math.floor(Date.now() / 1000) - 5}`;
  const lon = Math.round((center[0] + ((mmsi % 7) - 3) * 0.001) * 600_000);
  const lat = Math.round(center[1] * 600_000);
  return `\\${fields}*${checksum(fields)}\\${message(classA({ mmsi, lon, lat }))}\r\n`;
}

export interface Answer {
  mmsis: number[];
  /** 0: not answered. */
  status: number;
  sentAt: number;
  answeredAt: number;
}

export interface SteadyIngest {
  readonly answers: Answer[];
  /** The vessels of every request answered 202. */
  accepted(): number[];
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

/** `clients` loops, each posting `perRequest` new vessels, waiting `pauseMs` after each answer. */
export function steadyIngest(url: string, key: string, opts: { center: [number, number]; firstMmsi: number; clients?: number; perRequest?: number; pauseMs?: number }): SteadyIngest {
  const { center, clients = 2, perRequest = 10, pauseMs = 100 } = opts;
  const answers: Answer[] = [];
  let next = opts.firstMmsi;
  let sending = true;
  const client = async () => {
    while (sending) {
      const mmsis = Array.from({ length: perRequest }, () => next++);
      const sentAt = Date.now();
      let status = 0;
      try {
        const res = await fetch(`${url}/v1/ingest/ais`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body: mmsis.map((m) => positionLine(center, m)).join('') });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        // Not answered: not accepted, nothing owed.
      }
      answers.push({ mmsis, status, sentAt, answeredAt: Date.now() });
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const running = Array.from({ length: clients }, client);
  return {
    answers,
    accepted: () => answers.filter((a) => a.status === 202).flatMap((a) => a.mmsis),
    stop: async () => {
      sending = false;
      await Promise.all(running);
    },
  };
}

export interface ReadinessPoll {
  at: number;
  /** 0: not answered within 5 s. */
  status: number;
  body: { checks?: Record<string, { ok: boolean; error?: string; detail?: string }> } | undefined;
}

export interface ReadinessWatch {
  readonly polls: ReadinessPoll[];
  stop(): Promise<void>;
}

/** Polls `${url}/readyz` every 250 ms until stopped. */
export function watchReadiness(url: string): ReadinessWatch {
  const polls: ReadinessPoll[] = [];
  let polling = true;
  const loop = (async () => {
    while (polling) {
      try {
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
        polls.push({ at: Date.now(), status: res.status, body: (await res.json()) as ReadinessPoll['body'] });
      } catch {
        polls.push({ at: Date.now(), status: 0, body: undefined });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    polls,
    stop: async () => {
      polling = false;
      await loop;
    },
  };
}
