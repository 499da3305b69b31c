import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, streamFeature } from '../../../../app/features.ts';
import { startChildService, type ChildService } from '../../../support/child-service.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { unique } from '../../../support/stack.ts';
import { StreamClient } from '../../../support/stream-client.ts';

// Spec "Limits": at most 10 stream connections per API key, across every API instance
// (docs/events-and-delivery.md "Connection limit"): two in-process services with their own instance ids, and
// a `pss start --roles api` process killed with SIGKILL, whose connections stop counting when their 3 s
// leases run out.
describe('the stream connection limit', () => {
  const prefix = `${unique('limit')}.`;
  const lease = { PSS_STREAM_CONNECTION_LEASE_SECONDS: '3' };
  let a: TestService;
  let b: TestService;
  let child: ChildService | undefined;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    a = await startTestService({ PSS_TOPIC_PREFIX: prefix, ...lease }, [authFeature, streamFeature()]);
    b = await startTestService({ PSS_TOPIC_PREFIX: prefix, ...lease }, [authFeature, streamFeature()]);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await child?.kill();
    await a?.stop();
    await b?.stop();
  });

  async function open(url: string, key: string): Promise<StreamClient> {
    const client = await StreamClient.authenticated(url, key);
    clients.push(client);
    return client;
  }

  async function refused(url: string, key: string): Promise<void> {
    const client = await StreamClient.connect(url, key);
    clients.push(client);
    const error = await client.next();
    expect(error).toMatchObject({ type: 'error', code: 'connection_limit', message: expect.stringMatching(/already has 10 stream connections/) });
    expect(await client.closed).toMatchObject({ code: 4429, reason: expect.stringMatching(/already has 10/) });
  }

  it('refuses the 11th connection of a key on one instance, and takes one again after a close', async () => {
    const { key } = await a.key(['events:read']);
    const ten = [];
    for (let i = 0; i < 10; i++) ten.push(await open(a.url, key));
    await refused(a.url, key);
    ten[0]!.close();
    await ten[0]!.closed;
    await expect.poll(async () => (await StreamClient.connect(a.url, key).then(async (c) => (clients.push(c), (await c.next()).type))), { timeout: 5_000 }).toBe('authenticated');
  });

  it('counts the connections of both instances: 5 + 5, and the 11th is refused on either', async () => {
    const { key } = await a.key(['events:read']);
    for (let i = 0; i < 5; i++) await open(a.url, key);
    for (let i = 0; i < 5; i++) await open(b.url, key);
    await refused(a.url, key);
    await refused(b.url, key);
    // Another key is not affected.
    await open(b.url, (await a.key(['events:read'])).key);
  });

  it('stops counting the connections of an instance killed with SIGKILL once their leases run out', async () => {
    child = await startChildService(a.context.config, 'api', lease);
    const { key } = await a.key(['events:read']);
    for (let i = 0; i < 6; i++) await open(child.url, key);
    for (let i = 0; i < 4; i++) await open(a.url, key);
    await refused(a.url, key);
    await child.kill('SIGKILL');
    const killedAt = Date.now();
    // Its six rows stay until their 3 s leases (renewed every second) run out; then six fit again.
    await expect
      .poll(async () => {
        const c = await StreamClient.connect(b.url, key);
        clients.push(c);
        return (await c.next()).type;
      }, { timeout: 10_000, interval: 500 })
      .toBe('authenticated');
    expect(Date.now() - killedAt).toBeLessThan(6_000);
    for (let i = 0; i < 5; i++) await open(b.url, key);
    await refused(b.url, key);
  });
});
