// An incident as one timeline of what happened and what was done (pure; docs/console.md "Incidents"):
// its events, the response loop's actions by kind, target and outcome, and the operators' changes, oldest
// first, with repeats of the same line collapsed into one with a count.

export interface TimelineEvent {
  id: string;
  timestamp: string;
  type: string;
  severity: string;
  title: string;
  source_module?: string;
  metadata?: Record<string, unknown>;
}
export interface TimelineAction {
  id: string;
  kind: string;
  target: string;
  status: string;
  params?: Record<string, string>;
  result?: Record<string, unknown> | null;
  last_error?: string | null;
  created_at: string;
  done_at?: string | null;
}
export interface TimelineEscalation {
  action_id: string;
  party: string;
  webhook_ids: string[];
  deliveries?: { delivered: number; pending: number; failed: number };
}
export interface TimelineChange {
  at: string;
  action: string;
  by: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}
export interface IncidentRecords {
  events?: TimelineEvent[];
  actions?: TimelineAction[];
  escalations?: TimelineEscalation[];
  timeline?: TimelineChange[];
}

export interface TimelineEntry {
  /** When it first happened. */
  at: string;
  /** When the last of its repeats happened (equal to `at` when once). */
  lastAt: string;
  kind: 'event' | 'action' | 'change';
  text: string;
  /** event: its severity; action: its status. */
  tag: string;
  count: number;
  /** Something went wrong or nobody was told: shown as a warning. */
  warn: boolean;
}

const words = (id: string) => id.replace(/[_-]+/g, ' ');
const CHANNELS: Record<string, string> = { dashboard: 'the dashboard', push: 'push receivers', audio_alarm: 'the audio alarm' };

/** One action in words: what was done to what, and how it came out. */
export function actionText(a: TimelineAction, escalation?: TimelineEscalation): { text: string; warn: boolean } {
  const failed = a.status === 'failed' || a.status === 'given_up';
  const why = a.last_error ? `: ${a.last_error}` : '';
  const outcome = (done: string, planned: string) =>
    // Muted: the line of what would have been done; entryText says it was muted.
    a.status === 'done' || a.status === 'muted' ? done
        : a.status === 'failed' ? `${planned} failed, retrying${why}`
          : a.status === 'given_up' ? `${planned} given up${why}`
            : a.status === 'waiting_fleet' ? `${planned} waiting for the drone fleet`
              : `${planned} pending`;
  switch (a.kind) {
    case 'lock_gate':
      return { text: outcome(`gate ${a.target} locked`, `gate ${a.target} lock`), warn: failed };
    case 'notify': {
      const who = a.params?.assign_to ? ` (assigned to ${a.params.assign_to})` : '';
      return { text: outcome(`notified ${CHANNELS[a.target] ?? words(a.target)}${who}`, `notification of ${CHANNELS[a.target] ?? words(a.target)}`), warn: failed };
    }
    case 'escalate': {
      const party = words(a.target);
      if (a.status === 'muted') return { text: `escalated to ${party}`, warn: false };
      if (a.status !== 'done') return { text: outcome('', `escalation to ${party}`), warn: failed };
      const total = escalation?.webhook_ids.length ?? 0;
      if (total === 0) return { text: `escalated to ${party}: no receiver, nobody was told`, warn: true };
      const d = escalation?.deliveries ?? { delivered: 0, pending: 0, failed: 0 };
      const more = [d.pending ? `${d.pending} pending` : '', d.failed ? `${d.failed} failed` : ''].filter(Boolean).join(', ');
      return { text: `escalated to ${party}: delivered ${d.delivered}/${total}${more ? ` (${more})` : ''}`, warn: d.failed > 0 };
    }
    case 'dispatch_drone': {
      const skipped = typeof a.result?.skipped === 'string' ? `: not flown, ${a.result.skipped}` : '';
      return { text: outcome(`drone dispatched (${words(a.target)})${skipped}`, `drone dispatch (${words(a.target)})`), warn: failed || skipped !== '' };
    }
    case 'close_incident':
      return { text: outcome('closed by the response', 'closing by the response'), warn: failed };
    default:
      return { text: outcome(`${words(a.kind)} ${a.target}`, `${words(a.kind)} ${a.target}`), warn: failed };
  }
}

/** An operator's or the service's change in words; undefined for those the timeline shows otherwise (an event attached). */
export function changeText(c: TimelineChange): string | undefined {
  const after = c.after ?? {};
  const by = c.by ? ` by ${c.by}` : '';
  switch (c.action) {
    case 'opened': return 'incident opened';
    case 'event_attached': return undefined;
    case 'acknowledged': return `acknowledged${by}`;
    case 'assigned': return after.assigned_to ? `assigned to ${String(after.assigned_to)}${by}` : `unassigned${by}`;
    case 'resolved': return `resolved${by}${after.resolution_reason ? `: ${String(after.resolution_reason)}` : ''}`;
    case 'reopened': return 'reopened by a new event';
    case 'escalated': return `nobody acknowledged: escalation step ${String(after.escalation_step ?? '')}`.trim();
    case 'escalation_ended': return 'nobody acknowledged, and no party is left to escalate to';
    case 'note_added': return `note${by}`;
    case 'merged': return `merged into ${String(after.merged_into ?? 'another incident')}${by}`;
    case 'merged_from': return `took over another incident's events${by}`;
    default: return `${words(c.action)}${by}`;
  }
}

/** Every line, oldest first; the same line again (same kind, words and tag) is counted on its first. */
export function incidentTimeline(d: IncidentRecords): TimelineEntry[] {
  const escalations = new Map((d.escalations ?? []).map((e) => [e.action_id, e]));
  const actionIds = new Set((d.actions ?? []).map((a) => a.id));
  const raw: Omit<TimelineEntry, 'count' | 'lastAt'>[] = [];
  for (const e of d.events ?? []) {
    // The response's own events (gate_locked, incident_escalated) are its actions' lines already.
    if (typeof e.metadata?.action_id === 'string' && actionIds.has(e.metadata.action_id)) continue;
    raw.push({ at: e.timestamp, kind: 'event', text: e.title, tag: e.severity, warn: false });
  }
  for (const a of d.actions ?? []) raw.push({ at: a.done_at ?? a.created_at, kind: 'action', tag: a.status, ...actionText(a, escalations.get(a.id)) });
  for (const c of d.timeline ?? []) {
    const text = changeText(c);
    if (text !== undefined) raw.push({ at: c.at, kind: 'change', text, tag: c.action, warn: false });
  }
  raw.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const out: TimelineEntry[] = [];
  const seen = new Map<string, TimelineEntry>();
  for (const r of raw) {
    const key = `${r.kind}\u0000${r.text}\u0000${r.tag}`;
    const same = seen.get(key);
    if (same) {
      same.count += 1;
      same.lastAt = r.at;
      continue;
    }
    const entry = { ...r, lastAt: r.at, count: 1 };
    seen.set(key, entry);
    out.push(entry);
  }
  return out;
}

/** The line as read: "notified the dashboard ×12 (muted repeats)". */
export function entryText(e: TimelineEntry): string {
  const muted = e.kind === 'action' && e.tag === 'muted';
  if (e.count === 1) return muted ? `${e.text} (muted: recorded, not sent)` : e.text;
  return `${e.text} ×${e.count}${muted ? ' (muted repeats)' : ''}`;
}
