import type { RequestHandler } from 'express';

/**
 * The headers OWASP's REST Security Cheat Sheet asks of every API response, set before any route so that
 * errors (404, 401, 405, 422, 500) get them too: `nosniff`, so a browser never runs a JSON or text body
 * as script or HTML whatever its content looks like, and `no-store`, so no browser or proxy keeps an
 * answer that may carry credentials (a created API key, a client secret, tokens) or data a revoked
 * caller may no longer read. A route whose answer may be cached sets its own Cache-Control, which
 * replaces this one: the console's files (express.static) and its land tiles (a day).
 */
export const apiResponseHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
};
