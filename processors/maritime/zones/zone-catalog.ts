import type { Logger } from '../../../platform/log.ts';
import { NotifyListener } from '../../../platform/notify-listener.ts';
import type { Pool } from '../../../platform/postgres.ts';
import type { DwellTime, ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { StoredZone } from '../../../schemas/zone.ts';
import type { RuleZone } from '../rules/config.ts';
import { indexZone, ZoneIndex, type IndexedZone } from './zone-index.ts';

/** The zones one evaluation sees: the H3 index for where, the rule view for what follows. */
export interface ZoneSnapshot {
  index: ZoneIndex;
  rules: ReadonlyMap<string, RuleZone>;
  /** Each zone's speed, AIS, vessel type and time rules (rules-config/rule-store.ts), by zone id. */
  zoneRules: ReadonlyMap<string, ZoneRuleSet>;
  /** The site-wide dwell_time stored through the rules API; undefined: the built-in defaults. */
  dwellTime: DwellTime | undefined;
  /** A digest of every zone's and rule set's id and row version: any committed change alters it. */
  version: string;
}

export const ZONES_CHANGED_CHANNEL = 'pss_zones_changed';

/**
 * Every processor instance holds all zones in memory (they are small) and swaps in a new snapshot
 * within seconds of a change: at once on a NOTIFY from the zone API, and by polling as a fallback for
 * a missed notification (a dropped LISTEN connection). Unchanged zones keep their compiled H3 cover.
 */
export class ZoneCatalog {
  #snapshot: ZoneSnapshot = { index: ZoneIndex.fromIndexed([]), rules: new Map(), zoneRules: new Map(), dwellTime: undefined, version: '' };
  #compiled = new Map<string, { rowVersion: string; indexed: IndexedZone }>();
  #timer: NodeJS.Timeout | undefined;
  readonly #listener: NotifyListener;
  #stopped = false;
  #refreshing: Promise<void> | undefined;
  /** The reload that follows the one under way, for the changes notified during it. */
  #again: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    private readonly pollMs = 5_000,
  ) {
    this.#listener = new NotifyListener({
      pool, log, channel: ZONES_CHANGED_CHANNEL, what: 'zone change listener',
      onNotify: () => void this.refresh().catch((err) => this.log.warn({ err }, 'zone refresh failed')),
    });
  }

  get snapshot(): ZoneSnapshot {
    return this.#snapshot;
  }

  async start(): Promise<void> {
    await this.refresh();
    await this.#listener.ensure();
    this.#timer = setInterval(() => {
      void this.refresh().catch((err) => this.log.warn({ err }, 'zone refresh failed'));
      // A lost LISTEN connection is opened again at the next poll; the poll covers the gap.
      void this.#listener.ensure();
    }, this.pollMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#listener.stop();
  }

  /**
   * Reloads when the zone table changed since the current snapshot. A call during a reload gets one more
   * after it, shared by every call meanwhile: the reload under way may have read the tables before the
   * change it was called for committed (a zone's rules written just after the zone: their NOTIFY came
   * while the zone's reload was reading), and would leave that change to the next poll.
   */
  refresh(): Promise<void> {
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#reload().finally(() => (this.#refreshing = undefined));
      return this.#refreshing;
    }
    this.#again ??= this.#refreshing
      .catch(() => undefined)
      .then(() => {
        this.#again = undefined;
        return this.#stopped ? undefined : this.refresh();
      });
    return this.#again;
  }

  async #reload(): Promise<void> {
    // xmin changes with every committed write of a row, whatever the writers' clocks and commit order.
    const { rows: [stamp] } = await this.pool.query<{ version: string }>(
      `SELECT coalesce(md5(string_agg(k, ',' ORDER BY k)), '') AS version FROM (
         SELECT 'z:' || id || ':' || xmin::text AS k FROM zones
         UNION ALL SELECT 'r:' || zone_id || ':' || xmin::text FROM maritime_zone_rules
         UNION ALL SELECT 's:' || key || ':' || xmin::text FROM maritime_site_rules) v`,
    );
    if (stamp?.version === this.#snapshot.version) return;
    const [{ rows }, { rows: ruleRows }, { rows: siteRows }] = await Promise.all([
      this.pool.query<{ definition: StoredZone; row_version: string }>('SELECT definition, xmin::text AS row_version FROM zones ORDER BY id'),
      this.pool.query<{ zone_id: string; rules: ZoneRuleSet }>('SELECT zone_id, rules FROM maritime_zone_rules'),
      this.pool.query<{ value: DwellTime }>(`SELECT value FROM maritime_site_rules WHERE key = 'dwell_time'`),
    ]);
    const compiled = new Map<string, { rowVersion: string; indexed: IndexedZone }>();
    const rules = new Map<string, RuleZone>();
    const alertRules = new Map(ruleRows.flatMap((r) => (r.rules.alert_rules === undefined ? [] : [[r.zone_id, r.rules.alert_rules] as const])));
    for (const { definition: zone, row_version: rowVersion } of rows) {
      const known = this.#compiled.get(zone.id);
      try {
        const indexed = known?.rowVersion === rowVersion ? known.indexed : indexZone(zone);
        compiled.set(zone.id, { rowVersion, indexed });
        const alert = alertRules.get(zone.id);
        rules.set(zone.id, alert === undefined ? zone : { ...zone, alert_rules: alert });
      } catch (err) {
        // The API validated it; a zone that no longer compiles (e.g. after a limit change) is skipped loudly.
        this.log.error({ err, zone_id: zone.id }, 'zone skipped: its geometry does not compile');
      }
    }
    this.#compiled = compiled;
    this.#snapshot = {
      index: ZoneIndex.fromIndexed([...compiled.values()].map((c) => c.indexed)),
      rules,
      zoneRules: new Map(ruleRows.filter((r) => rules.has(r.zone_id)).map((r) => [r.zone_id, r.rules])),
      dwellTime: siteRows[0]?.value,
      version: stamp?.version ?? '',
    };
    this.log.info({ zones: rules.size, rule_sets: this.#snapshot.zoneRules.size, cells: this.#snapshot.index.cellCount }, 'zones and rules loaded');
  }
}
