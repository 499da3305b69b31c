// Splits a character stream (TCP, UDP, file) into lines. Real AIS feeds mix CR, CRLF and LF, and a CR
// can end one chunk while its LF starts the next. A source that never sends a line break cannot grow
// memory: a partial line longer than `maxLineLength` is handed on once as it is (the decoder rejects it as
// line_too_long), and the rest of that line, up to the next line break, is skipped.
import { DEFAULT_MAX_LINE_LENGTH } from './options.ts';

export interface LineSplitter {
  /** Returns the complete, non-empty lines in `chunk` (plus any carried over from earlier chunks). */
  push(chunk: string): string[];
  /** Returns the unterminated rest, if any, and resets. */
  flush(): string[];
}

export function createLineSplitter(maxLineLength = DEFAULT_MAX_LINE_LENGTH): LineSplitter {
  let rest = '';
  let skipLineFeed = false;
  /** Inside an over-long line already handed on: drop characters until its line break. */
  let skipping = false;

  function emit(lines: string[], line: string): void {
    if (skipping) skipping = false;
    else if (line.length > 0) lines.push(line);
  }

  return {
    push(chunk: string): string[] {
      const lines: string[] = [];
      if (chunk.length === 0) return lines;
      let start = skipLineFeed && chunk.charCodeAt(0) === 10 ? 1 : 0;
      skipLineFeed = false;
      for (let i = start; i < chunk.length; i++) {
        const c = chunk.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        emit(lines, rest + chunk.slice(start, i));
        rest = '';
        if (c === 13) {
          if (i + 1 === chunk.length) skipLineFeed = true;
          else if (chunk.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      if (!skipping) rest += chunk.slice(start);
      if (rest.length > maxLineLength) {
        emit(lines, rest);
        rest = '';
        skipping = true;
      }
      return lines;
    },
    flush(): string[] {
      const lines: string[] = [];
      emit(lines, rest);
      rest = '';
      skipLineFeed = false;
      skipping = false;
      return lines;
    },
  };
}
