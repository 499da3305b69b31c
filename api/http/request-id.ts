import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTABLE = /^[\w.:-]{1,128}$/;

/** Takes a caller's X-Request-Id when it is sane, else makes one; echoes it on every response. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.header('x-request-id');
  const id = given !== undefined && ACCEPTABLE.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
