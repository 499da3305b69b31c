import { counter, gauge } from '../../platform/metrics.ts';

/** The stream's metrics on /metrics (README "Operations"). */
export const streamMetrics = {
  clients: gauge('pss_stream_clients', 'Authenticated WebSocket stream connections on this instance'),
  sent: counter('pss_stream_messages_sent_total', 'Messages handed to stream sockets, by kind (event or control)', ['type']),
  drops: counter('pss_stream_drops_total', 'Stream connections the server ended, by reason (slow_consumer, ping_timeout, credential)', ['reason']),
  refused: counter('pss_stream_refused_total', 'Stream connections refused, by reason (unauthorized, forbidden, rate_limited, connection_limit, unavailable)', ['reason']),
  resumes: counter('pss_stream_resumes_total', 'Subscriptions resumed from a handle, by outcome (complete, gap, invalid) and source (memory, kafka)', ['outcome', 'source']),
  replayed: counter('pss_stream_replayed_events_total', 'Missed events replayed to resuming clients'),
};
