import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../../events/triage.ts';

describe('applyPatch', () => {
  const before = { requires_action: true, assigned_to: 'duty.officer', incident_id: 'inc_1' };

  it('replaces the fields given and keeps the others', () => {
    expect(applyPatch(before, { requires_action: false })).toEqual({ ...before, requires_action: false });
    expect(applyPatch(before, { assigned_to: 'night.shift' })).toEqual({ ...before, assigned_to: 'night.shift' });
  });

  it('takes "" and null as answers: unassigned, no incident', () => {
    expect(applyPatch(before, { assigned_to: '', incident_id: null })).toEqual({ requires_action: true, assigned_to: '', incident_id: null });
  });
});
