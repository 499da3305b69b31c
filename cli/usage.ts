// What `pss <command> --help` prints, and the usage line each command repeats when it is called wrongly.
// Kept apart from the commands (and importing nothing) so help answers without loading a command's
// dependencies, reading the configuration or reaching Kafka and Postgres.

export interface CommandHelp {
  /** One line per form of the command, without the leading `pss `. */
  synopsis: string[];
  /** What it does, one sentence. */
  about: string;
  /** `--option VALUE   meaning` lines. */
  options?: string[];
  /** Subcommands, for the --help walk of every command (test/unit/cli/help.test.ts). */
  subcommands?: string[];
}

export const COMMAND_HELP = {
  start: {
    synopsis: ['start [--roles ingest,processors,api]'],
    about: 'run the service (every role by default)',
    options: ['--roles LIST   the roles this instance runs, comma-separated (PSS_ROLES)'],
  },
  demo: {
    synopsis: ['demo [--minutes N]'],
    about: 'run the service with the Copenhagen demo port: zones, the DMA recording replayed in a loop on the wall clock, a gate lane and a drone fleet; prints every security event',
    options: ['--minutes N   stop the demo after N minutes (default: run until Ctrl-C); the demo API key is revoked when it stops'],
  },
  drones: {
    synopsis: ['drones simulate [--docks id:lon:lat,...] [--speed M/S] [--hz 0.5-1] [--station SECONDS] [--drain PERCENT/MIN] [--faults LIST]'],
    about: 'a simulated drone fleet on drone.commands / drone.telemetry / drone.reports until Ctrl-C',
    options: [
      '--docks LIST      docks as id:lon:lat, comma-separated (default: four docks on the Copenhagen demo port)',
      '--speed M/S       cruise speed (default 15)',
      '--hz N            telemetry rate, 0.5 to 1 per second (default 1)',
      '--station S       seconds on station before returning (default 20)',
      '--drain P         battery drain in percent per minute (default 2)',
      '--faults LIST     injected faults: lost_link, low_battery, reject, temporary_reject, no_answer',
    ],
    subcommands: ['simulate'],
  },
  migrate: { synopsis: ['migrate'], about: 'apply database migrations' },
  topics: {
    synopsis: ['topics [--apply]'],
    about: 'create missing Kafka topics and report each difference from the declared settings',
    options: ['--apply   mend what can be mended in place (partitions, configs); exit 1 while drift remains'],
  },
  config: {
    synopsis: ['config', 'config get', 'config set FILE.(json|yaml|yml)'],
    about: 'without arguments: print every setting as a Markdown table; get or replace the system configuration',
    subcommands: ['get', 'set'],
  },
  replay: {
    synopsis: ['replay FILE [--speed N | --fast] [--rate N/s] [--source NAME]'],
    about: 'feed a recorded NMEA log through the ingest into Kafka',
    options: [
      '--speed N      pace by the recorded times, N times faster (N > 0; 1 = recorded speed)',
      '--fast         feed as fast as Kafka takes it',
      '--rate N/s     for a recording without per-line times: stamp N lines per second of event time (N, N/s, N/min or N/h, at most 1000/s)',
      '--source NAME  the feed name (default replay:<file name>)',
    ],
  },
  scopes: { synopsis: ['scopes'], about: 'print the scope table of every /v1 endpoint (Markdown)' },
  openapi: { synopsis: ['openapi'], about: 'print the OpenAPI 3.1 document' },
  rules: {
    synopsis: ['rules import FILE.(json|yaml|yml)'],
    about: 'replace every maritime zone rule with the document in FILE (as PUT /v1/maritime/rules)',
    subcommands: ['import'],
  },
  keys: {
    synopsis: ['keys create --name NAME --scopes a,b [--expires-in-days N] [--ip-allowlist cidr,...]', 'keys revoke KEY_ID', 'keys list'],
    about: 'API keys without the API (how the first admin key is made); the key is printed once',
    options: ['--name NAME            what the key is for', '--scopes LIST          scopes, comma-separated', '--expires-in-days N     lifetime (default 90)', '--ip-allowlist LIST    addresses or CIDR ranges the key is accepted from'],
    subcommands: ['create', 'revoke', 'list'],
  },
  users: {
    synopsis: [
      'users create --username U --scopes a,b (--password P | --password-stdin)',
      'users list',
      'users scopes --username U --scopes a,b',
      'users disable --username U',
      'users enable --username U',
      'users reset-password --username U (--password P | --password-stdin)',
    ],
    about: 'operator accounts (the people who sign in on the OAuth consent page): create, list, change scopes, disable, enable, reset a password',
    options: [
      '--username U          the operator account',
      '--scopes LIST         scopes, comma-separated (scopes: the whole new set; revokes their tokens)',
      '--password-stdin      read the password from standard input (keeps it out of the process list)',
    ],
    subcommands: ['create', 'list', 'scopes', 'disable', 'enable', 'reset-password'],
  },
  webhooks: {
    synopsis: ['webhooks reseal'],
    about: 'seal every webhook secret again under PSS_WEBHOOK_SECRET_KEY (key rotation; the old key in PSS_WEBHOOK_SECRET_KEY_PREVIOUS)',
    subcommands: ['reseal'],
  },
  gates: {
    synopsis: ['gates locks', 'gates release GATE --reason TEXT [--by NAME]'],
    about: 'list the whole-gate locks of the response loop, or release one (an unlock command to the gate\'s lane controllers, audited)',
    options: [
      '--reason TEXT   why the gate may take trucks again (at least 10 characters; kept in the audit)',
      '--by NAME       who releases it (default cli:$USER)',
    ],
    subcommands: ['locks', 'release'],
  },
  audit: {
    synopsis: ['audit verify'],
    about: "check the hash chain of the gate transactions' audit trail",
    subcommands: ['verify'],
  },
  'oauth-clients': {
    synopsis: ['oauth-clients create --name N --redirect-uri URL [--redirect-uri URL ...] --scopes a,b [--public]'],
    about: 'register an OAuth application; prints its client_id and client_secret (shown once)',
    subcommands: ['create'],
  },
} as const satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMAND_HELP;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_HELP, name);
}

/** `usage: pss …` with one line per form: what a command prints when it is called wrongly. */
export function usageLine(name: CommandName): string {
  const forms = COMMAND_HELP[name].synopsis.map((s) => `pss ${s}`);
  return `usage: ${forms.join('\n       ')}`;
}

/** The whole help of one command: usage, what it does, its options. */
export function commandHelp(name: CommandName): string {
  const help: CommandHelp = COMMAND_HELP[name];
  return [usageLine(name), '', help.about, ...(help.options === undefined ? [] : ['', 'options:', ...help.options.map((o) => `  ${o}`)])].join('\n');
}

/** `pss --help`: every command with what it does. */
export function overallHelp(): string {
  const names = Object.keys(COMMAND_HELP) as CommandName[];
  const width = Math.max(...names.map((n) => n.length));
  return ['usage: pss <command> [options]   (pss <command> --help for its options)', '', ...names.map((n) => `  ${n.padEnd(width)}  ${COMMAND_HELP[n].about}`)].join('\n');
}
