import { counter, gauge } from '../../platform/metrics.ts';

/** The position stream's metrics on /metrics; its connections' sends and drops count in pss_stream_* with the event stream's. */
export const positionMetrics = {
  clients: gauge('pss_position_stream_clients', 'Authenticated position stream connections on this instance'),
  vessels: gauge('pss_position_stream_vessels', 'Vessels whose newest position this instance holds for the position stream'),
  flushed: counter('pss_position_stream_positions_total', 'Vessel positions flushed to the position stream (at most one per vessel a second)'),
  resumes: counter('pss_position_stream_resumes_total', 'Position subscriptions resumed from a handle, by outcome (complete, gap, invalid)', ['outcome']),
};
