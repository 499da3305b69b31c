// Real Chromium for the console's browser tests (issue 26): Debian's `chromium`, installed by the test
// set-up (infra/chromium.sh), driven by playwright-core. Headless WebGL (MapLibre) runs on SwiftShader.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Software WebGL in a headless browser without a GPU; --no-sandbox because the tests may run as root. */
export const CHROMIUM_ARGS = ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox', '--autoplay-policy=no-user-gesture-required'];

export function chromiumPath(): string {
  try {
    return execFileSync('bash', [`${ROOT}infra/chromium.sh`, 'path'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium is not installed: run `bash infra/chromium.sh` (apt-get install chromium), or set PSS_CHROMIUM to a Chromium executable');
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
}

/** Keeps a screenshot of the page under test-results/console/ (kept by the test run, ignored by git). */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = `${ROOT}test-results/console/`;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}${name}.png`;
  await page.screenshot({ path });
  return path;
}

/** Console messages and page errors, so a failing test says what the page said. */
export function pageLog(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  return lines;
}
