import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { lazySerializerFactory } from '../../../src/http/serializers.ts';

const thing = {
  $id: 'LazyThing',
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' } },
  required: ['id'],
} as const;

describe('lazySerializerFactory', () => {
  it('compiles a serializer at its first call, not when it is asked for', () => {
    const compiler = lazySerializerFactory()({}, {});
    // A reference to a schema nobody added: fast-json-stringify refuses it when compiling.
    const serialize = compiler({ method: 'GET', url: '/x', httpStatus: '200', schema: { $ref: 'Missing#' } });
    expect(() => serialize({})).toThrow(/Missing/);
  });

  it('writes what Fastify’s own compiler writes: the schema’s properties only, shared schemas resolved', async () => {
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } } });
    app.addSchema(thing);
    app.get('/thing', { schema: { response: { 200: { $ref: 'LazyThing#' } } } }, async () => ({
      id: 7,
      title: 'a',
      secret: 'not in the schema',
    }));
    const res = await app.inject('/thing');
    expect(res.body).toBe('{"id":7,"title":"a"}');
    await app.close();
  });
});
