import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { authFeature, consoleFeature, eventsFeature, gateFeature, incidentsFeature, maritimeFeature, vesselsFeature } from '../../app/features.ts';
import { verifyPassword } from '../../api/auth/secrets.ts';
import { screenshot } from '../support/browser.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { call } from '../support/service.ts';

// Issue 34 item 6, in real Chromium against the real service: an administrator opens the Operators tab,
// disables a watch officer who is signed in elsewhere (their page's token is refused at once, and they can
// no longer sign in through the console's OAuth sign-in), enables them, sets a new password and changes
// their scopes, each change listed with who made it. Screenshots: test-results/console/operators-*.png.
const RUN = Math.random().toString(36).slice(2, 8);
const ADMIN = `admin.${RUN}`;
const OFFICER = `watch.${RUN}`;
const PASSWORD = 'harbour-watch-2026';
const NEW_PASSWORD = 'a new harbour password';

describe('the Operators tab (admin)', () => {
  let stack: ConsoleStack;
  let page: Page;
  let officerPage: Page;
  let url: string;
  let admin: string;

  beforeAll(async () => {
    stack = await startConsoleStack('operators', [authFeature, maritimeFeature, vesselsFeature, eventsFeature, incidentsFeature, gateFeature, consoleFeature]);
    ({ page, url, admin } = stack);
    await createOperator(stack, ADMIN, PASSWORD, ['admin']);
    await createOperator(stack, OFFICER, PASSWORD, ['events:read', 'events:write', 'maritime:read']);
    officerPage = await stack.browser.newPage({ viewport: { width: 1366, height: 768 } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const operatorRow = () => page.locator('#operators li.operator-row', { hasText: OFFICER });
  const officerToken = () => officerPage.evaluate(() => Object.values(sessionStorage).concat(Object.values(localStorage)).join('\n'));
  const introspect = async (text: string) => {
    const token = /svc_oauth_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/.exec(text)?.[0];
    expect(token, 'the officer\'s page keeps its access token').toBeDefined();
    return (await call(`${url}/v1/auth/introspect`, token)).status;
  };

  it('shows no Operators tab to an operator without admin', async () => {
    await signIn(stack, OFFICER, PASSWORD, {}, officerPage);
    await officerPage.locator('#events').waitFor();
    expect(await officerPage.getByRole('tab', { name: 'Operators' }).count()).toBe(0);
    expect(await introspect(await officerToken())).toBe(200);
  });

  it('lists the operators with their scopes and state', async () => {
    await signIn(stack, ADMIN, PASSWORD);
    expect(await page.locator('#scopes').textContent()).toContain('admin');
    await page.getByRole('tab', { name: 'Operators' }).click();
    await expect.poll(() => operatorRow().count(), { timeout: 15_000 }).toBe(1);
    expect(await operatorRow().textContent()).toContain('active');
    expect(await operatorRow().textContent()).toContain('events:read events:write maritime:read');
    expect(await page.locator('#operators .operators-count').textContent()).toMatch(/^\d+ operator accounts, 0 disabled$/);
  });

  it('disables the officer: their open page\'s token is refused and they cannot sign in', async () => {
    const before = await officerToken();
    await operatorRow().getByRole('button').click();
    const detail = page.locator('#operators section.operator');
    await expect.poll(() => detail.locator('h3').textContent()).toBe(OFFICER);
    await detail.getByRole('button', { name: 'Disable account' }).click();
    await expect.poll(() => detail.locator('.done').textContent(), { timeout: 10_000 }).toBe(`${OFFICER} is disabled: they cannot sign in and their sessions ended.`);
    expect(await detail.locator('.operator-state').textContent()).toMatch(/^Account disabled since /);
    expect(await operatorRow().textContent()).toContain('disabled since');
    expect(await detail.getByRole('button', { name: 'Enable account' }).count()).toBe(1);
    await screenshot(page, 'operators-1-disabled');
    expect(await introspect(before)).toBe(401);

    // The console's own sign-in, as the officer would try it.
    await officerPage.evaluate(() => { sessionStorage.clear(); localStorage.clear(); });
    await officerPage.goto(`${url}/console/`);
    await officerPage.getByRole('button', { name: 'Sign in' }).click();
    await officerPage.waitForURL(/\/oauth\/authorize/);
    await officerPage.getByLabel('Username').fill(OFFICER);
    await officerPage.getByLabel('Password').fill(PASSWORD);
    await officerPage.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => officerPage.getByRole('alert').textContent(), { timeout: 10_000 }).toBe('Wrong username or password.');
    expect(officerPage.url()).toMatch(/\/oauth\/authorize/);
    await screenshot(officerPage, 'operators-2-refused');
  });

  it('enables the officer, sets a new password and changes the scopes, each change listed with who made it', async () => {
    const detail = page.locator('#operators section.operator');
    await detail.getByRole('button', { name: 'Enable account' }).click();
    await expect.poll(() => detail.locator('.done').textContent(), { timeout: 10_000 }).toBe(`${OFFICER} is enabled: they may sign in again.`);

    // Too short: said beside the field, nothing stored.
    await detail.getByLabel('New password').fill('short');
    await detail.getByRole('button', { name: 'Reset password' }).click();
    await expect.poll(() => detail.locator('[data-error=password]').textContent(), { timeout: 10_000 }).toBe('The password must be at least 12 characters long.');
    await detail.getByLabel('New password').fill(NEW_PASSWORD);
    await detail.getByRole('button', { name: 'Reset password' }).click();
    await expect.poll(() => detail.locator('.done').textContent(), { timeout: 10_000 }).toBe(`Password reset for ${OFFICER}; their sessions ended.`);
    const { rows } = await stack.service.context.pool.query('SELECT id, password_hash FROM operators WHERE username = $1', [OFFICER]);
    expect(await verifyPassword(NEW_PASSWORD, rows[0].password_hash)).toBe(true);

    await detail.getByRole('checkbox', { name: 'events:write' }).uncheck();
    await detail.getByRole('button', { name: 'Save scopes' }).click();
    await expect.poll(() => detail.locator('.done').textContent(), { timeout: 10_000 }).toMatch(/^Scopes saved for /);
    await expect.poll(() => operatorRow().textContent()).toContain('events:read maritime:read');
    const stored = await call(`${url}/v1/auth/operators?per_page=200`, admin);
    expect(stored.json.data.find((o: { username: string }) => o.username === OFFICER)).toMatchObject({ scopes: ['events:read', 'maritime:read'], disabled_at: null });

    const changes = await detail.locator('.operator-changes li').allTextContents();
    expect(changes.slice(0, 4).map((c) => c.replace(/^\S+ \S+ \S+ /, ''))).toEqual([
      `scopes changed: events:read maritime:read, by ${ADMIN}`,
      `password reset, by ${ADMIN}`,
      `enabled, by ${ADMIN}`,
      `disabled, by ${ADMIN}`,
    ]);
    await screenshot(page, 'operators-3-changes');
    expect(await page.locator('#message').isHidden(), await page.locator('#message').textContent() ?? '').toBe(true);
    expect(stack.log.filter((l) => l.startsWith('pageerror')), stack.log.join('\n')).toEqual([]);

    // The officer signs in with the new password and holds the new set.
    await signIn(stack, OFFICER, NEW_PASSWORD, {}, officerPage);
    expect(await officerPage.locator('#scopes').textContent()).toBe('events:read maritime:read');
  });
});
