// What the demo's gate lane controller does with gate.commands (pure), as docs/gate.md "What lane
// controllers must do" asks of a real one: keep the commands of its gate, once per command_id, and obey a
// `lock`: the lane it names, or every lane for `*`, stays locked until released. No truck is sent to a
// locked lane; a truck due there takes the next open lane of the gate, and is turned away when none is.
//
// Release: a `release` command (an operator's, POST /v1/gates/{gate}/release) lifts the lock of the lane
// it names (`*`: the whole gate's lock), so a released gate takes trucks again. Each command is obeyed once
// (its command_id remembered), so a lock delivered again after its release does not lock the gate again.
// The demo's locks live in this process: a lock issued before this demo started is an earlier run's and is
// not obeyed. The switch below is exhaustive over GATE_COMMAND_ACTIONS: a new action fails to compile
// until it is handled here.
import type { GateCommand } from '../../schemas/gate-transaction.ts';

export const ALL_LANES = '*';

export interface LockTaken {
  /** The lane locked, or `*` for the whole gate. */
  lane: string;
  command_id: string;
  reason: string;
  issued_by: string;
  /** Set when this is a lock lifted by a release: who released it. */
  released_by?: string;
}

export class LaneLocks {
  readonly #gate: string;
  readonly #sinceMs: number;
  /** Locked lanes (`*`: every lane) and the lock command each obeys. */
  readonly #locked = new Map<string, LockTaken>();
  /** Commands already obeyed (the topic is at-least-once). */
  readonly #seen = new Set<string>();

  /** `sinceMs`: when this controller started; commands issued before it belong to an earlier run. */
  constructor(gate: string, sinceMs: number) {
    this.#gate = gate;
    this.#sinceMs = sinceMs;
  }

  /** Obeys one command of gate.commands; returns the lock it took or lifted (`released`), when it did. */
  apply(command: GateCommand): LockTaken | undefined {
    if (command.gate !== this.#gate || Date.parse(command.issued_at) < this.#sinceMs || this.#seen.has(command.command_id)) return undefined;
    this.#seen.add(command.command_id);
    switch (command.action) {
      case 'open':
      case 'hold':
        // A barrier for one truck: the demo's trucks drive through whatever it says.
        return undefined;
      case 'lock': {
        // At-least-once delivery: the same lock again (or a second lock of a lane already locked) changes nothing.
        if (this.#locked.has(command.lane) || this.#locked.has(ALL_LANES)) return undefined;
        const taken = { lane: command.lane, command_id: command.command_id, reason: command.reason, issued_by: command.issued_by };
        this.#locked.set(command.lane, taken);
        return taken;
      }
      case 'release': {
        const lifted = this.#locked.get(command.lane);
        if (lifted === undefined) return undefined;
        this.#locked.delete(command.lane);
        return { ...lifted, released_by: command.issued_by };
      }
      default:
        return unknownAction(command.action);
    }
  }

  isLocked(lane: string): boolean {
    return this.#locked.has(ALL_LANES) || this.#locked.has(lane);
  }

  /** Whether every lane of the gate is locked (a `*` lock, or each of `lanes`). */
  allLocked(lanes: readonly string[]): boolean {
    return lanes.every((lane) => this.isLocked(lane));
  }

  /** The lane a truck due at `lane` takes: that one, else the next open one of `lanes` in turn; undefined when all are locked. */
  route(lane: string, lanes: readonly string[]): string | undefined {
    const from = Math.max(0, lanes.indexOf(lane));
    for (let i = 0; i < lanes.length; i++) {
      const candidate = lanes[(from + i) % lanes.length]!;
      if (!this.isLocked(candidate)) return candidate;
    }
    return undefined;
  }
}

/** Compile time: every action of GATE_COMMAND_ACTIONS is handled above. At run time nothing else gets past the codec. */
function unknownAction(action: never): undefined {
  void action;
  return undefined;
}
