import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPE_GRANTS, type Scope } from '../../schemas/auth.ts';

/**
 * The login and consent page of the authorization endpoint: server-rendered HTML, no scripts, no
 * external assets. CSRF defence: a random per-browser nonce in a SameSite=Strict, HttpOnly cookie,
 * and a form token = HMAC(key, nonce + expiry + the authorization request). A POST is accepted only
 * with a cookie, a matching unexpired token, and the very request parameters the page was shown for.
 * The page may not be framed (clickjacking).
 */

export const AUTHORIZE_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_FIELDS)[number], string>>;

export const CSRF_COOKIE = 'pss_oauth_csrf';
export const FORM_TOKEN_SECONDS = 600;

export function newNonce(): string {
  return randomBytes(24).toString('base64url');
}

function mac(key: Buffer, nonce: string, expires: number, params: AuthorizeParams): Buffer {
  const canonical = JSON.stringify(AUTHORIZE_FIELDS.map((f) => params[f] ?? ''));
  return createHmac('sha256', key).update(`${nonce}\n${expires}\n${canonical}`).digest();
}

export function formToken(key: Buffer, nonce: string, params: AuthorizeParams, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + FORM_TOKEN_SECONDS;
  return `${expires}.${mac(key, nonce, expires, params).toString('base64url')}`;
}

export function formTokenValid(key: Buffer, nonce: string | undefined, token: string | undefined, params: AuthorizeParams, now = Date.now()): boolean {
  if (!nonce || !token) return false;
  const [expiresText, sig] = token.split('.');
  const expires = Number(expiresText);
  if (!Number.isInteger(expires) || !sig || expires < now / 1000) return false;
  const expected = mac(key, nonce, expires, params);
  const given = Buffer.from(sig, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;background:#f3f5f8;color:#1b2430;margin:0}',
  'main{max-width:28rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}',
  'h1{font-size:1.3rem;margin-top:0}ul{padding-left:1.2rem}code{background:#eef1f5;padding:0 .25rem;border-radius:3px}',
  'label{display:block;margin-top:1rem}input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}',
  '.actions{display:flex;gap:1rem;margin-top:1.5rem}button{flex:1;padding:.6rem;font:inherit;border-radius:4px;border:1px solid #8894a3;background:#fff;cursor:pointer}',
  'button[value=approve]{background:#1f5fbf;color:#fff;border-color:#1f5fbf}.error{color:#a4161a;background:#fde8e8;padding:.5rem;border-radius:4px}',
].join('');

/** Headers for every HTML page of the authorization endpoint. */
export const HTML_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export interface ConsentView {
  action: string;
  applicationName: string;
  scopes: Scope[];
  params: AuthorizeParams;
  token: string;
  username?: string;
  error?: string;
}

export function consentPage(v: ConsentView): string {
  const hidden = AUTHORIZE_FIELDS.filter((f) => v.params[f] !== undefined)
    .map((f) => `<input type="hidden" name="${f}" value="${escapeHtml(v.params[f] as string)}">`)
    .join('');
  const scopes = v.scopes.map((s) => `<li><code>${escapeHtml(s)}</code> ${escapeHtml(SCOPE_GRANTS[s])}</li>`).join('');
  return page(
    `Authorize ${v.applicationName}`,
    `<h1>Sign in to authorize <strong>${escapeHtml(v.applicationName)}</strong></h1>` +
      (v.error ? `<p class="error" role="alert">${escapeHtml(v.error)}</p>` : '') +
      `<p>The application asks for:</p><ul>${scopes}</ul>` +
      `<p>It receives only the scopes your account holds.</p>` +
      `<form method="post" action="${escapeHtml(v.action)}">${hidden}<input type="hidden" name="form_token" value="${escapeHtml(v.token)}">` +
      `<label>Username <input type="text" name="username" autocomplete="username" required value="${escapeHtml(v.username ?? '')}"></label>` +
      `<label>Password <input type="password" name="password" autocomplete="current-password" required></label>` +
      `<div class="actions"><button type="submit" name="decision" value="deny" formnovalidate>Deny</button><button type="submit" name="decision" value="approve">Approve</button></div></form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error">${escapeHtml(message)}</p><p>Return to the application and start again.</p>`);
}
