// `pss` — the one command line of the service. Each subcommand lives in its own module.
import { parseArgs } from 'node:util';
import { ConfigError } from '../platform/config.ts';

type Command = (args: string[]) => Promise<number | void>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: { summary: 'start [--roles ingest,processors,api]   run the service', load: async () => (await import('./start.ts')).startCommand },
  demo: { summary: 'demo [--minutes N]                     run the service with the Copenhagen demo port and print events', load: async () => (await import('./demo.ts')).demoCommand },
  drones: { summary: 'drones simulate [--docks id:lon:lat,...] [--speed M/S] [--faults ...]   a simulated drone fleet on drone.commands / drone.telemetry / drone.reports', load: async () => (await import('./drones.ts')).dronesCommand },
  migrate: { summary: 'migrate                                apply database migrations', load: async () => (await import('./migrate.ts')).migrateCommand },
  topics: { summary: 'topics [--apply]                       create missing Kafka topics, report drift from the declared settings; --apply mends it', load: async () => (await import('./topics.ts')).topicsCommand },
  config: { summary: 'config [get | set FILE.json]           print every setting as a Markdown table; get or replace the system configuration', load: async () => (await import('./config.ts')).configCommand },
  replay: { summary: 'replay FILE [--speed N | --fast]       feed a recorded NMEA log through the ingest into Kafka', load: async () => (await import('./replay.ts')).replayCommand },
  scopes: { summary: 'scopes                                 print the scope table of every /v1 endpoint (Markdown)', load: async () => (await import('./scopes.ts')).scopesCommand },
  openapi: { summary: 'openapi                                print the OpenAPI 3.1 document', load: async () => (await import('./scopes.ts')).openApiCommand },
  rules: { summary: 'rules import FILE.json                  replace every maritime zone rule with the document in FILE', load: async () => (await import('./rules.ts')).rulesCommand },
  keys: { summary: 'keys create --name N --scopes a,b [--expires-in-days N] [--ip-allowlist cidr,...] | keys revoke ID | keys list', load: async () => (await import('./keys.ts')).keysCommand },
  users: { summary: 'users create --username U --scopes a,b (--password P | --password-stdin)   create an operator account', load: async () => (await import('./users.ts')).usersCommand },
  webhooks: { summary: 'webhooks reseal                        seal every webhook secret again under PSS_WEBHOOK_SECRET_KEY (key rotation; the old key in PSS_WEBHOOK_SECRET_KEY_PREVIOUS)', load: async () => (await import('./webhooks.ts')).webhooksCommand },
  audit: { summary: 'audit verify                           check the hash chain of the gate transactions\' audit trail', load: async () => (await import('./audit.ts')).auditCommand },
  'oauth-clients': { summary: 'oauth-clients create --name N --redirect-uri URL [--redirect-uri URL] --scopes a,b [--public]', load: async () => (await import('./oauth-clients.ts')).oauthClientsCommand },
};

function usage(): string {
  return ['usage: pss <command> [options]', '', ...Object.values(COMMANDS).map((c) => `  pss ${c.summary}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv.slice(0, 1), allowPositionals: true, strict: false });
  const name = positionals[0];
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    console.error(`pss: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  return (await command(argv.slice(1))) ?? 0;
}

try {
  const code = await main(process.argv.slice(2));
  // `start` keeps the process alive on its own; the other commands end here.
  if (code !== 0 || process.argv[2] !== 'start' && process.argv[2] !== 'demo') process.exitCode = code;
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`pss: configuration error: ${err.message}`);
    process.exitCode = 78;
  } else {
    console.error('pss:', err);
    process.exitCode = 1;
  }
}
