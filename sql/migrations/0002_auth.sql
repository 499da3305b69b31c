-- Up Migration
-- Credentials (spec "Authentication", "Credentials"). Secrets are never stored: API keys, OAuth codes,
-- access and refresh tokens and client secrets keep sha256 of the issued value (256-bit random
-- secrets); operator passwords keep an scrypt hash. Every secret carries a public id used for lookup.

CREATE TABLE api_keys (
  id           text PRIMARY KEY,                 -- key_<16 hex>, the id inside the key value
  name         text NOT NULL,
  key_hash     bytea NOT NULL,
  scopes       text[] NOT NULL,
  ip_allowlist text[] NOT NULL DEFAULT '{}',     -- normalized CIDRs; empty = any address
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  created_by   text NOT NULL,
  revoked_at   timestamptz
);

CREATE TABLE operators (
  id            text PRIMARY KEY,                -- usr_<16 hex>
  username      text NOT NULL UNIQUE,
  password_hash text NOT NULL,                   -- scrypt$N$r$p$salt$hash
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  disabled_at   timestamptz
);

CREATE TABLE oauth_clients (
  client_id     text PRIMARY KEY,                -- cli_<16 hex>
  name          text NOT NULL,
  secret_hash   bytea,                           -- NULL: public client (PKCE S256 required)
  redirect_uris text[] NOT NULL,
  scopes        text[] NOT NULL,
  grant_types   text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);

CREATE TABLE oauth_codes (
  id                    text PRIMARY KEY,        -- the id inside svc_code_<id>_<secret>
  code_hash             bytea NOT NULL,
  client_id             text NOT NULL REFERENCES oauth_clients (client_id),
  operator_id           text NOT NULL REFERENCES operators (id),
  redirect_uri          text NOT NULL,
  scopes                text[] NOT NULL,
  code_challenge        text,
  code_challenge_method text,
  expires_at            timestamptz NOT NULL,
  used_at               timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now()
);

-- One row per token pair. A family is every pair descending from one authorization code (family_id =
-- the code's id); reuse of the code or of a rotated refresh token revokes the whole family.
CREATE TABLE oauth_tokens (
  access_id          text PRIMARY KEY,
  access_hash        bytea NOT NULL,
  access_expires_at  timestamptz NOT NULL,
  refresh_id         text NOT NULL UNIQUE,
  refresh_hash       bytea NOT NULL,
  refresh_expires_at timestamptz NOT NULL,
  refresh_used_at    timestamptz,                -- set when rotated; presenting it again is reuse
  family_id          text NOT NULL,
  client_id          text NOT NULL REFERENCES oauth_clients (client_id),
  operator_id        text NOT NULL REFERENCES operators (id),
  scopes             text[] NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  revoked_at         timestamptz
);
CREATE INDEX oauth_tokens_family_idx ON oauth_tokens (family_id);

-- Keys the instances share (e.g. the login form signing key), created on first use.
CREATE TABLE auth_secrets (
  name       text PRIMARY KEY,
  secret     bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE auth_secrets;
DROP TABLE oauth_tokens;
DROP TABLE oauth_codes;
DROP TABLE oauth_clients;
DROP TABLE operators;
DROP TABLE api_keys;
