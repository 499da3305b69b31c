// The mission state machine (docs/drones.md "Mission states"), pure: what each input does to a mission in
// each state. A report the table refuses is recorded in the mission's timeline and counted, never applied.
import type { AckResult, MissionStatus, ProgressStatus } from '../schemas/drone.ts';

/** States a mission leaves no more. */
export const FINAL_STATUSES: ReadonlySet<MissionStatus> = new Set(['rejected', 'completed', 'partially_completed', 'aborted', 'failed', 'timeout']);
/** States in which a mission holds its drone (and its incident's subject). */
export const ACTIVE_STATUSES: readonly MissionStatus[] = ['requested', 'accepted', 'launched', 'on_station', 'returning'];
/** States in which the drone is in the air for the mission. */
export const FLYING_STATUSES: ReadonlySet<MissionStatus> = new Set(['launched', 'on_station', 'returning']);

export type MissionInput =
  /** The fleet's answer to the launch command. */
  | { kind: 'ack'; result: AckResult }
  /** A progress report. */
  | { kind: 'progress'; status: ProgressStatus }
  /** An evidence media record. */
  | { kind: 'evidence' }
  /** An operator (POST .../abort) or the service aborts it. */
  | { kind: 'abort' }
  /** Our clock: no drone or no acknowledgement before the deadline. */
  | { kind: 'deadline' };

export type Outcome =
  /** Move to `to` (`to` may equal the current state: e.g. a temporary rejection keeps it requested, without its drone). */
  | { apply: true; to: MissionStatus; release?: boolean }
  /** A repeat of what the mission already says (a report seen twice): nothing to do, nothing counted. */
  | { apply: false; repeat: true }
  /** Contradicts the state: recorded and counted, not applied. */
  | { apply: false; repeat: false; refused: string };

const move = (to: MissionStatus, release = false): Outcome => ({ apply: true, to, ...(release ? { release } : {}) });
const repeat: Outcome = { apply: false, repeat: true };
const refuse = (why: string): Outcome => ({ apply: false, repeat: false, refused: why });

/** Which states each progress status may follow. */
const PROGRESS_FROM: Readonly<Record<ProgressStatus, readonly MissionStatus[]>> = {
  launched: ['accepted'],
  on_station: ['launched'],
  returning: ['launched', 'on_station'],
  completed: ['on_station', 'returning'],
  partially_completed: ['launched', 'on_station', 'returning'],
  aborted: ['accepted', 'launched', 'on_station', 'returning'],
  failed: ['accepted', 'launched', 'on_station', 'returning'],
};

/** What `input` does to a mission in `status` (`hasDrone`: a drone was assigned and told to launch). */
export function transition(status: MissionStatus, input: MissionInput, hasDrone: boolean): Outcome {
  switch (input.kind) {
    case 'ack': {
      if (status !== 'requested' || !hasDrone) {
        const answered = status === 'accepted' || FLYING_STATUSES.has(status) || FINAL_STATUSES.has(status);
        return answered && (input.result === 'accepted' || input.result === 'in_progress') ? repeat : refuse(`acknowledgement ${input.result} of a mission that is ${status}${hasDrone ? '' : ' without a drone'}`);
      }
      switch (input.result) {
        case 'accepted':
        case 'in_progress':
          return move('accepted');
        case 'temporarily_rejected':
          // Tried again: the mission waits for a drone (this one or another) as before.
          return move('requested', true);
        case 'denied':
          return move('rejected', true);
        case 'failed':
        case 'cancelled':
          return move('failed', true);
      }
      return refuse('unknown acknowledgement');
    }
    case 'progress': {
      if (status === input.status) return repeat;
      return PROGRESS_FROM[input.status].includes(status) ? move(input.status, FINAL_STATUSES.has(input.status)) : refuse(`progress ${input.status} of a mission that is ${status}`);
    }
    case 'evidence':
      return FLYING_STATUSES.has(status) || status === 'completed' || status === 'partially_completed' || status === 'aborted' ? repeat : refuse(`evidence for a mission that is ${status}`);
    case 'abort':
      return ACTIVE_STATUSES.includes(status) ? move('aborted', true) : refuse(`abort of a mission that is ${status}`);
    case 'deadline':
      return status === 'requested' || status === 'accepted' ? move('timeout', true) : refuse(`deadline of a mission that is ${status}`);
  }
}
