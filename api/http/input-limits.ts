// What the edge refuses before any schema or handler sees a request (issue 8, defects 5 and 9): a
// body declared larger than the limit, JSON nested deeper than storage and recursion can take, and
// text that PostgreSQL cannot store or that has no place in an identifier. The route registry applies
// these to every route's path parameters, query and JSON body; the ingest routes, which parse their
// own bodies, call the same functions. docs/api.md "What the edge refuses, on every route"
// lists the limits.
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../platform/errors.ts';
import type { Location, Problem } from './validation.ts';

/** Deepest nesting of arrays and objects in a JSON body. The deepest body we define (a MultiPolygon zone) has 6. */
export const MAX_JSON_DEPTH = 32;

const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** One request lists at most this many text problems; the first few are enough to fix the client. */
const MAX_TEXT_PROBLEMS = 20;

/**
 * 413 as soon as the declared Content-Length is over the limit, before a byte of the body is read. (A
 * body without a declared length is counted as it arrives.) The error handler closes the connection
 * rather than read the rest.
 */
export function checkDeclaredLength(req: Request, limit: number): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new AppError('payload_too_large', `Request body of ${declared} bytes exceeds the limit of ${limit} bytes`);
  }
}

/**
 * Parses a JSON body of any JSON value into `req.body` (left undefined when the request has none):
 * the declared length first, then the nesting depth on the raw bytes, before JSON.parse and anything
 * recursive runs on it.
 */
export function jsonBodyParser(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: JSON_MEDIA_TYPES, verify: refuseDeepNesting });
  return (req, res, next) => {
    checkDeclaredLength(req, limit);
    parse(req, res, next);
  };
}

function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  // RFC 8259 section 8.1: JSON exchanged between systems is UTF-8; the byte scan below relies on it.
  if (encoding !== 'utf-8') throw new AppError('unsupported_media_type', `JSON bodies must be UTF-8, got charset ${encoding}`);
  if (nestingDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new AppError('bad_request', `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** One pass over UTF-8 JSON text, strings skipped; multi-byte characters never contain these ASCII bytes. */
export function nestingDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i] as number;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(byte)) {
      depth--;
    }
  }
  return false;
}

/**
 * Strings no route accepts: NUL (PostgreSQL text and jsonb cannot hold it) and unpaired UTF-16
 * surrogates (not Unicode; jsonb refuses them, text would store U+FFFD instead) anywhere, object keys
 * included; in path parameters and the query, every control character as well.
 */
/* eslint-disable no-control-regex -- finding control characters is the point */
const NUL_OR_SURROGATE = /[\u0000\p{Cs}]/u;
const CONTROL_OR_SURROGATE = /[\u0000-\u001f\u007f\p{Cs}]/u;
/* eslint-enable no-control-regex */
const FORBIDDEN: Record<Location, { pattern: RegExp; message: string }> = {
  body: { pattern: NUL_OR_SURROGATE, message: 'must not contain NUL (U+0000) or unpaired surrogate characters' },
  query: { pattern: CONTROL_OR_SURROGATE, message: 'must not contain control or unpaired surrogate characters' },
  params: { pattern: CONTROL_OR_SURROGATE, message: 'must not contain control or unpaired surrogate characters' },
};

/** Every string of `value` (depth already bounded) that `location` forbids, at its JSON Pointer. */
export function textProblems(location: Location, value: unknown): Problem[] {
  const { pattern, message } = FORBIDDEN[location];
  const found: Problem[] = [];
  const visit = (v: unknown, path: string): void => {
    if (found.length >= MAX_TEXT_PROBLEMS) return;
    if (typeof v === 'string') {
      if (pattern.test(v)) found.push({ location, path, message });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${path}/${i}`));
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (pattern.test(key)) found.push({ location, path: at, message: `(the field name) ${message}` });
        visit(item, at);
      }
    }
  };
  visit(value, '');
  return found;
}
