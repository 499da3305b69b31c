import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validated } from '../../../cli/db.ts';
import { SCOPES, operatorCreateSchema } from '../../../schemas/auth.ts';

// docs/console.md "Operators and roles" gives one `pss users create` line per role (issue 34 item 6): each must
// be a command that works, its scopes ones the service knows, checked with the schema the command uses.
const DOC = readFileSync(new URL('../../../docs/console.md', import.meta.url), 'utf8');
const section = DOC.slice(DOC.indexOf('## Operators and roles'), DOC.indexOf('## What it shows'));
const lines = [...section.matchAll(/^\| (Watch officer|Gate officer|Supervisor|Administrator) \|.*`npx pss users create --username (\S+) --scopes (\S+) --password-stdin` \|$/gm)];

describe('the role scope sets in docs/console.md', () => {
  it('has one working `pss users create` line for each of the four roles', () => {
    expect(lines.map((m) => m[1])).toEqual(['Watch officer', 'Gate officer', 'Supervisor', 'Administrator']);
    for (const [, role, username, scopes] of lines) {
      const list = (scopes as string).split(',');
      expect(list.filter((s) => !(SCOPES as string[]).includes(s)), role).toEqual([]);
      expect(() => validated(operatorCreateSchema, { username, password: 'a password long enough', scopes: list }), role).not.toThrow();
    }
  });

  it('gives each desk what its console needs', () => {
    const scopesOf = (role: string) => (lines.find((m) => m[1] === role)?.[3] ?? '').split(',');
    expect(scopesOf('Watch officer')).toEqual(expect.arrayContaining(['events:read', 'events:write', 'maritime:read']));
    expect(scopesOf('Gate officer')).toEqual(expect.arrayContaining(['transactions:read', 'transactions:write']));
    expect(scopesOf('Supervisor')).toEqual(expect.arrayContaining(['maritime:write', 'transactions:write', 'events:write']));
    expect(scopesOf('Supervisor')).not.toContain('admin');
    expect(scopesOf('Administrator')).toEqual(['admin']);
  });
});
