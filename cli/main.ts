// `pss` — the one command line of the service. Each subcommand lives in its own module, loaded only when
// it runs; `--help` is answered from cli/usage.ts before any module is loaded.
import { ConfigError } from '../platform/config.ts';
import { commandHelp, isCommandName, overallHelp, usageLine, type CommandName } from './usage.ts';

type Command = (args: string[]) => Promise<number | void>;

const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  start: async () => (await import('./start.ts')).startCommand,
  demo: async () => (await import('./demo.ts')).demoCommand,
  drones: async () => (await import('./drones.ts')).dronesCommand,
  migrate: async () => (await import('./migrate.ts')).migrateCommand,
  topics: async () => (await import('./topics.ts')).topicsCommand,
  config: async () => (await import('./config.ts')).configCommand,
  replay: async () => (await import('./replay.ts')).replayCommand,
  scopes: async () => (await import('./scopes.ts')).scopesCommand,
  openapi: async () => (await import('./scopes.ts')).openApiCommand,
  rules: async () => (await import('./rules.ts')).rulesCommand,
  keys: async () => (await import('./keys.ts')).keysCommand,
  users: async () => (await import('./users.ts')).usersCommand,
  webhooks: async () => (await import('./webhooks.ts')).webhooksCommand,
  gates: async () => (await import('./gates.ts')).gatesCommand,
  audit: async () => (await import('./audit.ts')).auditCommand,
  'oauth-clients': async () => (await import('./oauth-clients.ts')).oauthClientsCommand,
};

const HELP_FLAGS = new Set(['--help', '-h']);

/** Whether the arguments ask for help: a help flag before any `--` (after it, arguments are positionals). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => HELP_FLAGS.has(a));
}

/** node:util parseArgs' errors (unknown option, missing value, unexpected positional) are the caller's mistake. */
function isParseArgsError(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || HELP_FLAGS.has(name)) {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic !== undefined && isCommandName(topic)) {
      console.log(commandHelp(topic));
      return 0;
    }
    console.log(overallHelp());
    return name === undefined ? 2 : 0;
  }
  if (!isCommandName(name)) {
    console.error(`pss: unknown command "${name}"\n\n${overallHelp()}`);
    return 2;
  }
  if (asksForHelp(args)) {
    console.log(commandHelp(name));
    return 0;
  }
  const command = await COMMANDS[name]();
  try {
    return (await command(args)) ?? 0;
  } catch (err) {
    if (!isParseArgsError(err)) throw err;
    console.error(`pss ${name}: ${err.message}\n${usageLine(name)}\n(pss ${name} --help for the options)`);
    return 2;
  }
}

try {
  const code = await main(process.argv.slice(2));
  // `start` and `demo` keep the process alive on their own; the other commands end here.
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
