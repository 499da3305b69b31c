import { SETTINGS, loadConfig } from '../app/config.ts';

/** Validates the current environment and prints the settings table (the README's table comes from here). */
export async function configCommand(): Promise<number> {
  loadConfig();
  const rows = Object.values(SETTINGS).map((s) => `| \`${s.env}\` | ${'default' in s && s.default !== '' ? `\`${s.default}\`` : '(empty)'} | ${s.description} |`);
  console.log(['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n'));
  return 0;
}
