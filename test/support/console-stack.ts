// What every browser test of the console (issue 26) stands on: the api and processors roles on a port of
// their own with a fresh topic prefix (the OAuth redirect URI is the page's own address), an admin API key
// for set-up and checks, operators to sign in as, and Chromium at the 1366x768 the console is made for.
import { createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { hashPassword } from '../../api/auth/secrets.ts';
import { insertOperator } from '../../api/auth/oauth-store.ts';
import { consoleClientId } from '../../api/console/console-client.ts';
import type { Feature } from '../../app/feature.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { topicSpecs } from '../../platform/topics.ts';
import type { Scope } from '../../schemas/auth.ts';
import { launchChromium, pageLog, screenshot } from './browser.ts';
import { testConfig, testLog, unique, withAdmin } from './stack.ts';

export interface ConsoleStack {
  service: RunningService;
  /** The service's own address, http://127.0.0.1:<port> */
  url: string;
  /** An admin API key for set-up and for reading back what the console stored. */
  admin: string;
  browser: Browser;
  page: Page;
  /** What the page logged (console messages and page errors). */
  log: string[];
  /** Stops the browser and the service, revokes the console's tokens and deletes the prefix's topics. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startConsoleStack(name: string, features: Feature[], overrides: Record<string, string> = {}): Promise<ConsoleStack> {
  const prefix = `${unique(name)}.`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_HTTP_PORT: String(port), PSS_PUBLIC_URL: url, PSS_AUTH_URL: url, PSS_RATE_LIMIT_BURST: '10000', ...overrides });
  const service = await startService(config, ['api', 'processors'], testLog, features);
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await service.context.pool.query('UPDATE oauth_tokens SET revoked_at = now() WHERE client_id = $1', [consoleClientId(service.context.config)]).catch(() => undefined);
    await service.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  };
  try {
    const admin = (await createApiKey(service.context.pool, config.environment, { name: `${name}-e2e`, scopes: ['admin'] }, 'test')).key;
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    return { service, url, admin, browser, page, log: pageLog(page), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** An operator account (the people who sign in to the console) holding these scopes. */
export async function createOperator(stack: ConsoleStack, username: string, password: string, scopes: Scope[]): Promise<void> {
  await insertOperator(stack.service.context.pool, { id: `op_${username}`, username, passwordHash: await hashPassword(password), scopes });
}

/**
 * Signs in through the service's own OAuth pages as the console's user does, keeping screenshots of the
 * sign-in and consent pages when named; resolves once the console shows the operator's scopes.
 */
export async function signIn(stack: ConsoleStack, username: string, password: string, shots: { signIn?: string; consent?: string } = {}, page: Page = stack.page): Promise<void> {
  const { url } = stack;
  await page.goto(`${url}/console/`);
  if (shots.signIn) await screenshot(page, shots.signIn);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/oauth\/authorize/);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  if (shots.consent) await screenshot(page, shots.consent);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL(`${url}/console/`);
  await page.locator('#scopes:not(:empty)').waitFor();
}
