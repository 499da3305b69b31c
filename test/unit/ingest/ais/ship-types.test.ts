import { describe, expect, it } from 'vitest';
import { describeShipType } from '../../../../ingest/ais/ship-types.ts';
import { shipCategorySchema } from '../../../../schemas/ais.ts';

describe('describeShipType', () => {
  it.each([
    [20, 'wing_in_ground'], [30, 'fishing'], [31, 'towing'], [32, 'towing'], [33, 'dredging'], [34, 'diving'],
    [35, 'military'], [36, 'sailing'], [37, 'pleasure'], [40, 'high_speed_craft'], [50, 'pilot'],
    [51, 'search_and_rescue'], [52, 'tug'], [53, 'port_authority'], [54, 'anti_pollution'], [55, 'law_enforcement'],
    [56, 'local_vessel'], [57, 'local_vessel'], [58, 'medical'], [59, 'noncombatant'], [60, 'passenger'],
    [69, 'passenger'], [70, 'cargo'], [79, 'cargo'], [80, 'tanker'], [89, 'tanker'], [90, 'other'], [99, 'other'],
  ])('maps code %i to %s (ITU-R M.1371 table 53)', (code, category) => {
    expect(describeShipType(code)?.category).toBe(category);
  });

  it('treats 0 as not available and codes outside 0-255 as nothing', () => {
    expect(describeShipType(0)).toBeUndefined();
    expect(describeShipType(256)).toBeUndefined();
    expect(describeShipType(-1)).toBeUndefined();
    expect(describeShipType(1.5)).toBeUndefined();
  });

  it('maps reserved codes to unknown', () => {
    for (const code of [1, 19, 38, 39, 100, 199, 200, 255]) expect(describeShipType(code)?.category).toBe('unknown');
  });

  it('reads the hazardous cargo category from the second digit of the hazard groups only', () => {
    expect(describeShipType(81)).toEqual({ category: 'tanker', hazardous_category: 'A' });
    expect(describeShipType(74)).toEqual({ category: 'cargo', hazardous_category: 'D' });
    expect(describeShipType(62)).toEqual({ category: 'passenger', hazardous_category: 'B' });
    expect(describeShipType(23)).toEqual({ category: 'wing_in_ground', hazardous_category: 'C' });
    expect(describeShipType(85)).toEqual({ category: 'tanker' });
    expect(describeShipType(31)).toEqual({ category: 'towing' });
    expect(describeShipType(51)).toEqual({ category: 'search_and_rescue' });
  });

  it('gives every code 1-255 a category from the schema', () => {
    const allowed = new Set<string>(shipCategorySchema.enum);
    for (let code = 1; code <= 255; code++) expect(allowed.has(describeShipType(code)?.category ?? '')).toBe(true);
  });
});
