// The example analyst queries, read from sql/analyst/examples.sql (one source for docs/analysts.md,
// the tests and the benchmark).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ANALYST_EXAMPLES_FILE = fileURLToPath(new URL('../../sql/analyst/examples.sql', import.meta.url));

export interface AnalystExample {
  name: string;
  /** The question, from the comment lines under the name. */
  question: string;
  /** The query as written, comments excluded. */
  sql: string;
}

export function analystExamples(text = readFileSync(ANALYST_EXAMPLES_FILE, 'utf8')): AnalystExample[] {
  return text.split(/^-- name: /m).slice(1).map((block) => {
    const [name = '', ...lines] = block.split('\n');
    const question = lines.filter((l) => l.startsWith('-- ')).map((l) => l.slice(3)).join(' ');
    const sql = lines.filter((l) => !l.startsWith('--')).join('\n').trim();
    return { name: name.trim(), question, sql };
  });
}
