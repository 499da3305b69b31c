import { describe, expect, it } from 'vitest';
import { isVesselAuthorized } from '../../../../../processors/maritime/rules/authorization.ts';
import { makeZone } from './zone-fixtures.ts';

describe('isVesselAuthorized', () => {
  const zone = makeZone({
    authorized_vessels: [{ mmsi_list: [219_000_001, 219_000_002] }, { vessel_types: ['pilot', 'Port_Authority'] }, { mmsi_list: [219_000_009] }],
  });

  it('authorizes an MMSI listed in any entry', () => {
    expect(isVesselAuthorized(zone, 219_000_002, 'cargo')).toBe(true);
    expect(isVesselAuthorized(zone, 219_000_009, null)).toBe(true);
  });

  it('authorizes a listed vessel category, ignoring case', () => {
    expect(isVesselAuthorized(zone, 111, 'PILOT')).toBe(true);
    expect(isVesselAuthorized(zone, 111, 'port_authority')).toBe(true);
  });

  it('does not authorize other vessels', () => {
    expect(isVesselAuthorized(zone, 111, 'tug')).toBe(false);
  });

  it('authorizes a vessel of unknown category by MMSI only', () => {
    expect(isVesselAuthorized(zone, 111, undefined)).toBe(false);
    expect(isVesselAuthorized(zone, 219_000_001, undefined)).toBe(true);
  });

  it('authorizes nobody in a zone without authorized vessels', () => {
    expect(isVesselAuthorized(makeZone(), 219_000_001, 'pilot')).toBe(false);
    expect(isVesselAuthorized(makeZone({ authorized_vessels: [] }), 219_000_001, 'pilot')).toBe(false);
  });

  it('reads a refreshed zone, not a cached earlier version', () => {
    const refreshed = makeZone({ authorized_vessels: [{ mmsi_list: [111] }] });
    expect(isVesselAuthorized(zone, 111, 'tug')).toBe(false);
    expect(isVesselAuthorized(refreshed, 111, 'tug')).toBe(true);
  });
});
