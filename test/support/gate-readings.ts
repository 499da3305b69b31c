// A complete, valid gate lane reading for tests; override what a test is about.
import type { GateReading } from '../../schemas/gate-reading.ts';

export function reading(overrides: Partial<GateReading> = {}): GateReading {
  return {
    reading_id: 'rd-0001',
    gate: 'gate-north',
    lane: 'lane-2',
    captured_at: '2025-03-01T08:29:58Z',
    vehicle: { plate: 'AB123CD', plate_confidence: 0.97, plate_image_url: 'https://cams.example/plate/1.jpg', type: 'truck', carrier: 'Nordic Haulage', driver_id: 'drv-88', appointment_id: 'apt-551' },
    container: {
      id: 'CSQU3054383',
      ocr_confidence: 0.93,
      ocr_image_url: 'https://cams.example/ocr/1.jpg',
      iso_type: '22G1',
      size: '20ft',
      weight_declared_kg: 18_200,
      weight_estimated_kg: 18_950,
      seal: { number: 'SL-778812', status: 'intact', confidence: 0.9, seal_image_url: 'https://cams.example/seal/1.jpg' },
    },
    inspection: {
      damage_regions: [{ type: 'dent', area: 'left_side', severity: 'low', confidence: 0.71, bounding_box: { x: 0.1, y: 0.2, width: 0.05, height: 0.04 } }],
      images: [{ type: 'front', url: 'https://cams.example/front/1.jpg', captured_at: '2025-03-01T08:29:57Z' }],
    },
    ...overrides,
  };
}
