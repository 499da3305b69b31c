import type { FromSchema } from 'json-schema-to-ts';

/**
 * Authentication contract (spec: "Authentication", "Scopes", "API key", "OAuth application",
 * "Token response", "Introspection result", "Errors"). Request bodies are validated with these
 * schemas and the OpenAPI document is generated from them.
 */

/** Spec "Scopes", plus `ingest:write` (issue 4: sensor credentials can only ingest). */
export const SCOPE_GRANTS = {
  'events:read': 'read security events',
  'events:write': 'create and update events',
  'transactions:read': 'read gate transactions',
  'transactions:write': 'override transaction decisions',
  'maritime:read': 'read vessel data, zones, risk scores',
  'maritime:write': 'create and modify threat zones',
  'drones:read': 'read fleet status and mission data',
  'drones:write': 'create missions, abort flights',
  'webhooks:read': 'list webhook configurations',
  'webhooks:write': 'create, update, delete webhooks',
  'system:read': 'read system health and config',
  'system:write': 'modify system configuration',
  'ingest:write': 'submit sensor and AIS readings to the ingest endpoints (nothing else)',
  admin: 'full administrative access; satisfies every scope requirement',
} as const;

export type Scope = keyof typeof SCOPE_GRANTS;
export const SCOPES = Object.keys(SCOPE_GRANTS) as Scope[];

export const AUTH_LIMITS = {
  /** Spec "Security practices": rotate keys at least every 90 days, so a key without expires_in_days gets 90. */
  defaultKeyLifetimeDays: 90,
  maxKeyLifetimeDays: 3650,
  maxNameLength: 200,
  maxAllowlistEntries: 100,
  maxRedirectUris: 20,
  maxUriLength: 2000,
} as const;

const scopeSchema = { type: 'string', enum: SCOPES } as const;
const scopeList = { type: 'array', items: scopeSchema, minItems: 1, uniqueItems: true, maxItems: SCOPES.length } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const name = { type: 'string', minLength: 1, maxLength: AUTH_LIMITS.maxNameLength } as const;

/** POST /v1/auth/api-keys. Only name and scopes are required (spec: "A rotation call with only name and scopes is accepted"). */
export const apiKeyCreateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'scopes'],
  properties: {
    name,
    scopes: scopeList,
    expires_in_days: { type: 'integer', minimum: 1, maximum: AUTH_LIMITS.maxKeyLifetimeDays, description: `Days until expiry; default ${AUTH_LIMITS.defaultKeyLifetimeDays}.` },
    ip_allowlist: {
      type: 'array',
      maxItems: AUTH_LIMITS.maxAllowlistEntries,
      description: 'IPv4/IPv6 CIDR ranges (a bare address means a single host). Empty or absent: any address.',
      items: { type: 'string', minLength: 2, maxLength: 64 },
    },
  },
} as const;
export type ApiKeyCreate = FromSchema<typeof apiKeyCreateSchema>;

/** An API key as listed: never the secret. */
export const apiKeySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'scopes', 'expires_at', 'created_at', 'ip_allowlist'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'array', items: scopeSchema },
    expires_at: timestamp,
    created_at: timestamp,
    ip_allowlist: { type: 'array', items: { type: 'string' } },
  },
} as const;
export type ApiKey = FromSchema<typeof apiKeySchema>;

/** The creation response: the only time `key` is ever shown. */
export const apiKeyCreatedSchema = {
  ...apiKeySchema,
  required: [...apiKeySchema.required, 'key'],
  properties: { ...apiKeySchema.properties, key: { type: 'string', description: 'The full secret; shown only in this response.' } },
} as const;
export type ApiKeyCreated = FromSchema<typeof apiKeyCreatedSchema>;

export const apiKeyIdParamsSchema = {
  type: 'object',
  required: ['key_id'],
  properties: { key_id: { type: 'string', pattern: '^key_[0-9a-f]{16}$' } },
} as const;

/** `pss users create`: an operator account, who signs in on the OAuth consent page. */
export const operatorCreateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password', 'scopes'],
  properties: {
    username: { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,100}$' },
    password: { type: 'string', minLength: 12, maxLength: 1024 },
    scopes: scopeList,
  },
} as const;
export type OperatorCreate = FromSchema<typeof operatorCreateSchema>;

/** An operator's id in a path: `usr_<16 hex>` as `pss users create` makes them (older accounts may differ). */
export const OPERATOR_ID_PATTERN = '^[A-Za-z0-9._@-]{1,120}$';

export const operatorIdParamsSchema = {
  type: 'object',
  required: ['operator_id'],
  properties: { operator_id: { type: 'string', pattern: OPERATOR_ID_PATTERN } },
} as const;

/** An operator account as an admin sees it (GET /v1/auth/operators): never the password hash. */
export const operatorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'username', 'scopes', 'created_at', 'disabled_at'],
  properties: {
    id: { type: 'string' },
    username: { type: 'string' },
    scopes: { type: 'array', items: scopeSchema },
    created_at: timestamp,
    disabled_at: { ...timestamp, type: ['string', 'null'], description: 'When the account was disabled; null while it may sign in.' },
  },
} as const;
export type OperatorView = FromSchema<typeof operatorSchema>;

/** PATCH /v1/auth/operators/{operator_id}: new scopes, disabled or enabled, or both. */
export const operatorChangeSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    scopes: { ...scopeList, description: 'The whole new set (replaces the old one). Revokes the operator\'s tokens: they sign in again and get the new set.' },
    disabled: { type: 'boolean', description: 'true: the operator cannot sign in and every token of theirs is revoked at once. false: enabled again.' },
  },
} as const;
export type OperatorChange = FromSchema<typeof operatorChangeSchema>;

/** POST /v1/auth/operators/{operator_id}/password: a password reset by an admin. */
export const operatorPasswordSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['password'],
  properties: { password: operatorCreateSchema.properties.password },
} as const;
export type OperatorPassword = FromSchema<typeof operatorPasswordSchema>;

export const OPERATOR_ACTIONS = ['create', 'scopes', 'disable', 'enable', 'reset_password'] as const;

/** One audited change of an operator account (GET /v1/auth/operators/{operator_id}/changes). */
export const operatorChangeRecordSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'operator_id', 'changed_at', 'action', 'changed_by', 'before', 'after'],
  properties: {
    id: { type: 'integer' },
    operator_id: { type: 'string' },
    changed_at: timestamp,
    action: { type: 'string', enum: OPERATOR_ACTIONS },
    changed_by: {
      type: 'object',
      additionalProperties: false,
      required: ['credential_id', 'principal', 'auth_kind'],
      properties: { credential_id: { type: 'string' }, principal: { type: 'string' }, auth_kind: { type: 'string', enum: ['api_key', 'oauth', 'cli'] } },
    },
    before: { type: 'object', description: 'The changed fields before (scopes, disabled); a reset records {"password": "previous"}.' },
    after: { type: 'object', description: 'The changed fields after; a reset records {"password": "reset"}, never a hash.' },
  },
} as const;

export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

/** The shape of every issued OAuth client_id (`cli_` + 16 hex); anything else names no application. */
export const OAUTH_CLIENT_ID_PATTERN = '^cli_[0-9a-f]{16}$';

/** POST /v1/auth/oauth-clients (spec "OAuth application"; registration itself is not shown in the spec). */
export const oauthClientCreateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'redirect_uris', 'scopes'],
  properties: {
    name,
    redirect_uris: {
      type: 'array',
      minItems: 1,
      maxItems: AUTH_LIMITS.maxRedirectUris,
      uniqueItems: true,
      description: 'Absolute https URLs without fragment; http only for loopback hosts (RFC 8252). Matched exactly.',
      items: { type: 'string', minLength: 8, maxLength: AUTH_LIMITS.maxUriLength },
    },
    scopes: scopeList,
    grant_types: { type: 'array', items: { type: 'string', enum: GRANT_TYPES }, minItems: 1, uniqueItems: true, default: [...GRANT_TYPES] },
    client_type: {
      type: 'string',
      enum: ['confidential', 'public'],
      default: 'confidential',
      description: 'RFC 6749 section 2.1. A public client gets no secret and must use PKCE (S256).',
    },
  },
} as const;
export type OAuthClientCreate = FromSchema<typeof oauthClientCreateSchema>;

export const oauthClientSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['client_id', 'name', 'redirect_uris', 'scopes', 'grant_types', 'client_type', 'created_at'],
  properties: {
    client_id: { type: 'string' },
    name: { type: 'string' },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: scopeSchema },
    grant_types: { type: 'array', items: { type: 'string', enum: GRANT_TYPES } },
    client_type: { type: 'string', enum: ['confidential', 'public'] },
    created_at: timestamp,
  },
} as const;
export type OAuthClient = FromSchema<typeof oauthClientSchema>;

export const oauthClientCreatedSchema = {
  ...oauthClientSchema,
  properties: {
    ...oauthClientSchema.properties,
    client_secret: { type: 'string', description: 'Shown only in this response; absent for public clients.' },
  },
} as const;

/** Spec "Introspection result", under `data`. */
export const TOKEN_TYPES = ['oauth', 'api_key'] as const;
export const introspectionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['active', 'scopes', 'expires_at', 'client_id', 'token_type'],
  properties: {
    active: { type: 'boolean' },
    scopes: { type: 'array', items: scopeSchema },
    expires_at: timestamp,
    client_id: { type: 'string', description: 'OAuth: the application client_id. API key: the key id.' },
    token_type: { type: 'string', enum: TOKEN_TYPES, description: '`oauth` for an OAuth access token, `api_key` for an API key.' },
    subject: { type: 'string', description: 'Our addition. OAuth: the operator\'s username (the console fills operator fields with it). API key: the key\'s name.' },
  },
} as const;
export type Introspection = FromSchema<typeof introspectionSchema>;

/** Spec "Token response" (token endpoint, no `data` wrapper). */
export const tokenResponseSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'refresh_token'],
  properties: {
    access_token: { type: 'string', pattern: '^svc_oauth_' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer', const: 3600 },
    refresh_token: { type: 'string', pattern: '^svc_refresh_' },
    scope: { type: 'string', description: 'Space-separated; in the authorization-code exchange response only.' },
  },
} as const;

/** RFC 6749 section 5.2 error response of the token endpoint. */
export const oauthErrorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'server_error'] },
    error_description: { type: 'string' },
  },
} as const;
