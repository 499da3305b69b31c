// The operator console's settings (docs/console.md), assembled with every other module's in app/config.ts.
import type { Setting, SettingsValues } from '../../platform/config.ts';
import { checkSiteLandFile } from './site-land.ts';

export const CONSOLE_SETTINGS = {
  consoleTimezone: {
    env: 'PSS_CONSOLE_TIMEZONE',
    description: 'Operator console: the port\'s timezone (IANA name); the console shows every time in it, with the zone\'s abbreviation beside it.',
    default: 'Europe/Copenhagen',
    parse: (raw: string) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: raw });
      } catch {
        throw new Error(`"${raw}" is not an IANA timezone (e.g. Europe/Copenhagen)`);
      }
      return raw;
    },
  },
  consoleTileUrl: {
    env: 'PSS_CONSOLE_TILE_URL',
    description: 'Operator console: a raster tile URL template ({z}/{x}/{y}) of the site\'s own tile server or nautical chart, drawn under the zones. Empty: the packaged land on a sea background, nothing fetched from the internet.',
    default: '',
    parse: (raw: string) => {
      if (raw !== '' && !/^https?:\/\/.+\{z\}.*\{x\}.*\{y\}/.test(raw)) throw new Error('must be an http(s) URL template with {z}, {x} and {y}');
      return raw;
    },
  },
  consoleLandFile: {
    env: 'PSS_CONSOLE_LAND_FILE',
    description: 'Operator console: the site\'s own land (a GeoJSON Feature with bbox, written by infra/cut-site-land.ts), drawn inside its box instead of Natural Earth. Empty: the packaged Øresund cut (api/console/land/site-land.json).',
    default: '',
    // Checked at start-up: a wrong file stops the service naming it, rather than failing every land tile.
    parse: (raw: string) => (raw === '' ? raw : checkSiteLandFile(raw)),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type ConsoleConfig = SettingsValues<typeof CONSOLE_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the console settings into Config
  interface Config extends ConsoleConfig {}
}
