import { describe, expect, it } from 'vitest';
import { SETTINGS, loadConfig } from '../../../app/config.ts';
import { ConfigError } from '../../../platform/config.ts';

describe('loadConfig', () => {
  it('serves the local stack with defaults only', () => {
    const config = loadConfig({});
    expect(config.kafkaBrokers).toEqual(['127.0.0.1:9092']);
    expect(config.httpPort).toBe(8080);
    expect(config.roles).toEqual(['ingest', 'processors', 'api']);
  });

  it('names the setting when a value is malformed', () => {
    expect(() => loadConfig({ PSS_HTTP_PORT: 'eighty' })).toThrow(/PSS_HTTP_PORT: must be an integer/);
    expect(() => loadConfig({ PSS_KAFKA_BROKERS: 'localhost' })).toThrow(/PSS_KAFKA_BROKERS: "localhost" is not host:port/);
    expect(() => loadConfig({ PSS_DATABASE_URL: 'mysql://x' })).toThrow(/PSS_DATABASE_URL: must use postgres:/);
    expect(() => loadConfig({ PSS_ROLES: 'api,gatekeeper' })).toThrow(/PSS_ROLES: unknown role "gatekeeper"/);
    expect(() => loadConfig({ PSS_ENVIRONMENT: 'prod' })).toThrow(ConfigError);
  });

  it('documents every setting with a PSS_ variable and a description', () => {
    for (const setting of Object.values(SETTINGS)) {
      expect(setting.env).toMatch(/^PSS_[A-Z_]+$/);
      expect(setting.description.length).toBeGreaterThan(10);
    }
  });
});
