// The events module's settings, owned here and assembled with every other module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../platform/config.ts';

export const EVENT_SETTINGS = {
  eventRetentionDays: {
    env: 'PSS_EVENT_RETENTION_DAYS',
    description: 'Days a stored security event (with its operator changes) is kept, counted from when it was stored; older ones are deleted hourly, in batches, by every api instance. 0 keeps events forever.',
    default: '365',
    parse: int(0, 36_500),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type EventConfig = SettingsValues<typeof EVENT_SETTINGS>;

declare module '../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the event settings into Config
  interface Config extends EventConfig {}
}
