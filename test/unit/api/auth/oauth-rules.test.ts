import { describe, expect, it } from 'vitest';
import { consentPage, escapeHtml, formToken, formTokenValid } from '../../../../api/auth/consent-page.ts';
import { redirectUriProblem } from '../../../../api/auth/clients.ts';
import { grantableScopes } from '../../../../api/auth/oauth-model.ts';
import { allows, type Principal } from '../../../../api/auth/principal.ts';

const key = Buffer.alloc(32, 7);
const params = { response_type: 'code', client_id: 'cli_1', redirect_uri: 'https://app/cb', scope: 'events:read', state: 'xyz' };

describe('the consent form token', () => {
  it('is accepted with the same browser nonce and the same request parameters', () => {
    expect(formTokenValid(key, 'nonce-a', formToken(key, 'nonce-a', params), params)).toBe(true);
  });

  it('is refused for another browser, altered parameters, a missing cookie, or after it expires', () => {
    const token = formToken(key, 'nonce-a', params, 0);
    const now = 1000;
    expect(formTokenValid(key, 'nonce-a', formToken(key, 'nonce-a', params), params)).toBe(true);
    expect(formTokenValid(key, 'nonce-b', formToken(key, 'nonce-a', params), params)).toBe(false);
    expect(formTokenValid(key, 'nonce-a', formToken(key, 'nonce-a', params), { ...params, scope: 'admin' })).toBe(false);
    expect(formTokenValid(key, undefined, formToken(key, 'nonce-a', params), params)).toBe(false);
    expect(formTokenValid(key, 'nonce-a', token, params, now + 601_000)).toBe(false);
    expect(formTokenValid(key, 'nonce-a', 'garbage', params)).toBe(false);
  });
});

describe('the consent page', () => {
  it('escapes everything it shows', () => {
    const html = consentPage({ action: '/oauth/authorize', applicationName: '<script>x</script>', scopes: ['events:read'], params: { ...params, state: '"><img>' }, token: 't' });
    expect(html).not.toContain('<script>x');
    expect(html).not.toContain('"><img>');
    expect(html).toContain(escapeHtml('<script>x</script>'));
    expect(html).toContain('read security events');
  });
});

describe('grantable scopes', () => {
  it('are the requested scopes that the client may ask for and the operator holds', () => {
    expect(grantableScopes(['events:read', 'maritime:read', 'webhooks:read'], { scopes: ['events:read', 'webhooks:read'] }, { scopes: ['events:read', 'maritime:read'] })).toEqual(['events:read']);
  });

  it('treat admin on either side as covering every scope, without granting admin unless asked', () => {
    expect(grantableScopes(['events:read'], { scopes: ['admin'] }, { scopes: ['events:read'] })).toEqual(['events:read']);
    expect(grantableScopes(['admin'], { scopes: ['admin'] }, { scopes: ['events:read'] })).toEqual([]);
    expect(grantableScopes(['admin', 'events:read'], { scopes: ['admin'] }, { scopes: ['admin'] })).toEqual(['events:read', 'admin']);
  });
});

describe('route scopes', () => {
  const p = (scopes: Principal['scopes']): Principal => ({ kind: 'api_key', credentialId: 'k', clientId: 'k', subject: 's', scopes, expiresAt: null });
  it('admit any one of a route\'s scopes, admin always, and any credential when the route lists none', () => {
    expect(allows(p(['events:read']), ['events:read', 'events:write'])).toBe(true);
    expect(allows(p(['events:write']), ['events:read'])).toBe(false);
    expect(allows(p(['admin']), ['ingest:write'])).toBe(true);
    expect(allows(p(['ingest:write']), ['events:read'])).toBe(false);
    expect(allows(p([]), [])).toBe(true);
  });
});

describe('redirect URIs at registration', () => {
  it('must be https, or http on a loopback host, without fragment', () => {
    expect(redirectUriProblem('https://app.example/cb?x=1')).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:8123/cb')).toBeNull();
    expect(redirectUriProblem('http://[::1]/cb')).toBeNull();
    expect(redirectUriProblem('http://app.example/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://app.example/cb#frag')).toMatch(/fragment/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
  });
});
