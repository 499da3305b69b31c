import { counter, gauge, histogram } from '../../platform/metrics.ts';

/** The stream's metrics on /metrics (docs/operations.md "Operations"). */
export const streamMetrics = {
  clients: gauge('pss_stream_clients', 'Authenticated WebSocket stream connections on this instance'),
  sent: counter('pss_stream_messages_sent_total', 'Messages handed to stream sockets, by kind (event or control)', ['type'], { type: ['event', 'control'] }),
  drops: counter('pss_stream_drops_total', 'Stream connections the server ended, by reason (slow_consumer, message_rate, ping_timeout, credential)', ['reason'], { reason: ['slow_consumer', 'message_rate', 'ping_timeout', 'credential'] }),
  refused: counter('pss_stream_refused_total', 'Stream connections refused, by reason (unauthorized, forbidden, rate_limited, connection_limit, unavailable)', ['reason'], { reason: ['unauthorized', 'forbidden', 'rate_limited', 'connection_limit', 'unavailable'] }),
  resumes: counter('pss_stream_resumes_total', 'Subscriptions resumed from a handle, by outcome (complete, gap, invalid) and source (memory, kafka)', ['outcome', 'source']),
  dispatchDelay: histogram('pss_stream_dispatch_delay_seconds', 'From a record\'s append to security.events to its dispatch to this instance\'s clients (the oldest record of each dispatched slice)', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]),
  replayed: counter('pss_stream_replayed_events_total', 'Missed events replayed to resuming clients'),
  copies: counter('pss_stream_event_copies_skipped_total', 'security.events records this instance did not send because they repeat an event id and revision published just before (a relay that crashed after publishing)'),
};
