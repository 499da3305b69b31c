import { authFeature } from '../api/auth/feature.ts';
import { ingestFeature } from '../ingest/feature.ts';
import { maritimeFeature } from '../processors/maritime/feature.ts';
import type { Feature } from './service.ts';

/** Every feature of the service, in start order. Each issue's capability adds itself here. */
export const FEATURES: Feature[] = [authFeature, ingestFeature, maritimeFeature];
