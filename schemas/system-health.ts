// GET /v1/system/health (issue 25, docs/operations.md): the service's health across instances.
// The statuses of platform/health/model.ts (schemas/ imports nothing above it).
const status = { type: 'string', enum: ['ok', 'degraded', 'down'] } as const;
const instant = { type: 'string', format: 'date-time' } as const;

const instanceView = {
  type: 'object',
  additionalProperties: false,
  required: ['instance_id', 'status', 'since', 'reason'],
  properties: { instance_id: { type: 'string' }, status, since: instant, reason: { type: 'string' } },
} as const;

export const systemHealthSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'checked_at', 'components', 'instances'],
  properties: {
    status: { ...status, description: 'The worst status of the components.' },
    checked_at: instant,
    components: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['component', 'status', 'since', 'reason', 'instances', 'announced'],
        properties: {
          component: { type: 'string', description: 'kafka, postgres, schema_registry, consumers, event_relay, ingest_producer, consumer_group:<group>, ais_source:<feed>, ...' },
          status: { ...status, description: 'Across the instances that report it: down when all of them say down, degraded when some do or any says degraded.' },
          since: instant,
          reason: { type: 'string' },
          instances: { type: 'array', items: instanceView, description: 'Each reporting instance\'s own view.' },
          announced: {
            type: ['object', 'null'],
            additionalProperties: false,
            required: ['status', 'since', 'transition'],
            description: 'What the last system_health_change said (null before the component\'s first transition); differs from status while a change waits out the debounce.',
            properties: { status, since: instant, transition: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    instances: {
      type: 'array',
      description: 'Instances whose report has not expired.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['instance_id', 'roles', 'reported_at', 'expires_at'],
        properties: { instance_id: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } }, reported_at: instant, expires_at: instant },
      },
    },
  },
} as const;
