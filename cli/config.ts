import { systemConfigCommand } from './system-config.ts';
import { SETTINGS, loadConfig } from '../app/config.ts';

/**
 * Without arguments: validates the current environment and prints the settings table (docs/configuration.md's
 * table comes from here). `get` / `set FILE`: the system configuration (system-config.ts).
 */
export async function configCommand(args: string[] = []): Promise<number> {
  if (args.length > 0) return systemConfigCommand(args);
  loadConfig();
  const rows = Object.values(SETTINGS).map((s) => `| \`${s.env}\` | ${'default' in s && s.default !== '' ? `\`${s.default}\`` : '(empty)'} | ${s.description} |`);
  console.log(['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n'));
  return 0;
}
