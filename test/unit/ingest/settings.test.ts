import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../app/config.ts';

describe('ingest settings', () => {
  it('reads named and unnamed TCP and UDP sources', () => {
    const config = loadConfig({ PSS_AIS_TCP_SOURCES: 'dma=ais.example.org:4001, 127.0.0.1:5000', PSS_AIS_UDP_SOURCES: '0.0.0.0:10110' });
    expect(config.aisTcpSources).toEqual([
      { name: 'dma', host: 'ais.example.org', port: 4001 },
      { name: 'tcp:127.0.0.1:5000', host: '127.0.0.1', port: 5000 },
    ]);
    expect(config.aisUdpSources).toEqual([{ name: 'udp:0.0.0.0:10110', host: '0.0.0.0', port: 10110 }]);
  });

  it('has no sources, strict tag blocks and the raw consumers by default', () => {
    const config = loadConfig({});
    expect(config.aisTcpSources).toEqual([]);
    expect(config.aisUdpSources).toEqual([]);
    expect(config.aisStrictTagBlocks).toBe(true);
    expect(config.ingestRawConsumers).toBe(true);
  });

  it('names the setting when a source or flag is malformed', () => {
    expect(() => loadConfig({ PSS_AIS_TCP_SOURCES: 'receiver' })).toThrow(/PSS_AIS_TCP_SOURCES: "receiver" is not \[name=\]host:port/);
    expect(() => loadConfig({ PSS_AIS_TCP_SOURCES: 'a=h:1,a=h:2' })).toThrow(/PSS_AIS_TCP_SOURCES: source names must be unique/);
    expect(() => loadConfig({ PSS_AIS_UDP_SOURCES: 'h:99999' })).toThrow(/PSS_AIS_UDP_SOURCES/);
    expect(() => loadConfig({ PSS_AIS_STRICT_TAG_BLOCKS: 'maybe' })).toThrow(/PSS_AIS_STRICT_TAG_BLOCKS: must be true or false/);
  });
});
