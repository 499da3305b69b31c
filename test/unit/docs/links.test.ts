// Issue 25: the README is the entry page and the detail lives in docs/; every relative link of README.md
// and docs/*.md resolves (the file exists inside the repository; an #anchor names a heading of the target,
// by GitHub's rule), and the README's map links every document.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const FILES = [join(ROOT, 'README.md'), ...(existsSync(DOCS) ? readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f)) : [])];

/** Markdown outside fenced code blocks, with inline code spans blanked (links in them are not links). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`+[^`]*`+/g, '``');
  });
}

/** The anchors GitHub gives a file's headings: the text lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const words = (heading[1] as string).replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
      const slug = words.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      out.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1] as string);
  }
  return out;
}

/** Relative link targets of a Markdown file: inline links and images, and reference definitions. */
export function links(text: string): string[] {
  const found: string[] = [];
  for (const line of prose(text)) {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push(m[1] as string);
    const definition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (definition) found.push(definition[1] as string);
  }
  return found.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function broken(file: string): string[] {
  const problems: string[] = [];
  const where = relative(ROOT, file);
  for (const target of links(readFileSync(file, 'utf8'))) {
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!resolved.startsWith(ROOT)) {
      problems.push(`${where}: ${target} points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where}: ${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && anchor !== '') {
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) problems.push(`${where}: ${target}: an anchor into a file that is not Markdown`);
      else if (!anchors(readFileSync(resolved, 'utf8')).has(anchor)) problems.push(`${where}: ${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`);
    }
  }
  return problems;
}

describe('documentation links', () => {
  it('the checker finds anchors and links as GitHub renders them', () => {
    const sample = '# Title\n## API: keys, `scopes` and errors\n## Events\n### Events\n```\n# not a heading [x](nowhere.md)\n```\nSee [a](docs/a.md#b), `[code](no.md)`, ![i](img.png) and [w](https://example.com).\n[ref]: ../c.md\n';
    expect([...anchors(sample)]).toEqual(['title', 'api-keys-scopes-and-errors', 'events', 'events-1']);
    expect(links(sample)).toEqual(['docs/a.md#b', 'img.png', '../c.md']);
  });

  it('every relative link of README.md and docs/*.md resolves, anchors included', () => {
    expect(FILES.length).toBeGreaterThan(1);
    expect(FILES.flatMap(broken)).toEqual([]);
  });

  it('the README is the entry page: its fixed sections, and a link to every document in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const heading of ['## Quick start', '## Documentation', '## Benchmarks', '## Not built yet']) expect(readme).toMatch(new RegExp(`^${heading}$`, 'm'));
    const linked = new Set(links(readme).map((t) => t.split('#')[0]));
    const unlinked = FILES.filter((f) => f.startsWith(DOCS)).map((f) => relative(ROOT, f)).filter((f) => !linked.has(f));
    expect(unlinked).toEqual([]);
  });
});
