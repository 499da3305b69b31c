// `pss drones simulate`: a simulated drone fleet on the fleet contract (drone.commands in, drone.telemetry
// and drone.reports out) until interrupted; docks, speed, telemetry rate and injected faults from options.
import { parseArgs } from 'node:util';
import { loadConfig } from '../app/config.ts';
import { SIM_FAULTS, FleetSimulator, type SimDock, type SimFault } from '../drones/simulator/fleet-simulator.ts';
import { runSimulator } from '../drones/simulator/simulator-runner.ts';
import { createCodec } from '../platform/codec/index.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { usageLine } from './usage.ts';

/** Four docks on the Copenhagen demo port (cli/demo/copenhagen-port.ts): by the cruise terminal, the naval base and the harbour mouth. */
export const DEFAULT_DOCKS = 'dock-north:12.5990:55.7010,dock-south:12.6050:55.6890,dock-holmen:12.6020:55.6820,dock-east:12.6150:55.6950';

export function parseDocks(text: string): SimDock[] {
  return text.split(',').filter((s) => s.trim() !== '').map((part) => {
    const [id, lon, lat] = part.trim().split(':');
    const dock = { id: id ?? '', lon: Number(lon), lat: Number(lat) };
    if (dock.id === '' || !Number.isFinite(dock.lon) || !Number.isFinite(dock.lat) || Math.abs(dock.lon) > 180 || Math.abs(dock.lat) > 90) throw new Error(`bad dock "${part}": expected id:lon:lat`);
    return dock;
  });
}

export function parseFaults(text: string): SimFault[] {
  return text.split(',').filter((s) => s.trim() !== '').map((f) => {
    if (!(SIM_FAULTS as readonly string[]).includes(f.trim())) throw new Error(`unknown fault "${f}": one of ${SIM_FAULTS.join(', ')}`);
    return f.trim() as SimFault;
  });
}

export async function dronesCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args, allowPositionals: true,
    options: {
      docks: { type: 'string', default: DEFAULT_DOCKS },
      speed: { type: 'string', default: '15' },
      hz: { type: 'string', default: '1' },
      station: { type: 'string', default: '20' },
      drain: { type: 'string', default: '2' },
      faults: { type: 'string', default: '' },
    },
  });
  if (positionals[0] !== 'simulate') {
    console.error(usageLine('drones'));
    return 2;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const kafka = { brokers: config.kafkaBrokers, clientId: `${config.kafkaClientId}-drone-sim`, log };
  const admin = new KafkaAdmin(kafka);
  await admin.ensureTopics(topicSpecs(config.topicPrefix));
  await admin.close();
  const topics = topicNames(config.topicPrefix);
  const producer = new KafkaProducer(kafka);
  const codec = await createCodec(config.schemaRegistryUrl, topics, config.positionFormat);
  const sim = new FleetSimulator({
    docks: parseDocks(values.docks), speedMps: Number(values.speed), telemetryHz: Math.min(1, Math.max(0.5, Number(values.hz))),
    stationSeconds: Number(values.station), drainPerMinute: Number(values.drain), faults: parseFaults(values.faults),
  }, Date.now());
  const running = await runSimulator({ kafka, producer, codec, topics, topicPrefix: config.topicPrefix, log }, sim, {
    onRecord: (r) => {
      if ('type' in r) console.log(JSON.stringify(r));
    },
  });
  console.log(`simulating ${sim.droneIds.join(', ')}; Ctrl-C to stop`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await running.stop();
  await producer.close();
  return 0;
}
