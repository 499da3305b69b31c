// Where `pss demo` writes its log: the terminal belongs to the event table, so the JSON log lines (with
// their stack traces, and the retries the service expects, such as a drone mission waiting for a free
// drone) go to a file, and only errors reach the terminal, as one line that points at the file.
import type { DestinationStream } from 'pino';

/** pino's numeric levels: error and fatal reach the terminal. */
const TERMINAL_LEVEL = 50;

/** The terminal's line for one JSON log line, or undefined when it stays in the file. Never a stack trace. */
export function terminalLine(jsonLine: string, logFile: string): string | undefined {
  let entry: { level?: unknown; msg?: unknown; err?: { message?: unknown } };
  try {
    entry = JSON.parse(jsonLine) as typeof entry;
  } catch {
    return undefined;
  }
  if (typeof entry.level !== 'number' || entry.level < TERMINAL_LEVEL) return undefined;
  const cause = typeof entry.err?.message === 'string' ? `: ${entry.err.message.split('\n')[0]}` : '';
  return `pss ${entry.level >= 60 ? 'fatal' : 'error'}: ${String(entry.msg ?? '')}${cause} (details in ${logFile})`;
}

/** A pino destination: every line to `file`, errors also to `say` as terminalLine gives them. */
export function demoLogSink(file: { write(chunk: string): unknown }, logFile: string, say: (line: string) => void): DestinationStream {
  return {
    write(line: string) {
      file.write(line);
      const shown = terminalLine(line, logFile);
      if (shown !== undefined) say(shown);
    },
  };
}
