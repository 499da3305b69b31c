import { describe, expect, it } from 'vitest';
import { scramVerifier } from '../../../../processors/vessels/analyst-role.ts';

describe('scramVerifier', () => {
  it('computes the verifier PostgreSQL 15 stores for the same password, salt and iterations', () => {
    // From PostgreSQL itself: SET password_encryption = 'scram-sha-256'; CREATE ROLE r PASSWORD 'correct horse battery'.
    const stored = 'SCRAM-SHA-256$4096:+QPZrSOYStybqFlp3xnckg==$UMaPjXkkgZsUCx8Lf9hqmVfPebdd4qqkgguihVOSAaU=:CEieeRehAiVEC6g743E9KY06R1txKT/OOProsxeneJc=';
    expect(scramVerifier('correct horse battery', Buffer.from('+QPZrSOYStybqFlp3xnckg==', 'base64'), 4096)).toBe(stored);
  });

  it('uses a fresh salt each time and never contains the password', () => {
    const a = scramVerifier('correct horse battery');
    const b = scramVerifier('correct horse battery');
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(a).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
  });
});
