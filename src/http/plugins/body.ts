/**
 * Request bodies (api-v2.md conventions 5, DECISIONS.md "Formats and protocol"): JSON or
 * form-urlencoded on every write; an empty JSON body is `{}`; a body that does not parse, or of
 * another content type, is 400 `invalid_request` (see errors.ts).
 */
import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';

export async function registerBodyParsers(app: FastifyInstance): Promise<void> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    return parseJson(request, body as string, done);
  });
  // Fastify parses text/plain by default; the API takes JSON and form bodies only (spec conventions 5).
  app.removeContentTypeParser('text/plain');
  await app.register(formbody);
}
