/**
 * Response serializers compiled on first use. Fastify compiles a serializer (fast-json-stringify)
 * for every response schema of every route — each status, each media type — when the routes are
 * registered; here each of them is compiled the first time a reply with that route, status and
 * media type is serialized, and kept. The output is the same as Fastify's default compiler's
 * (@fastify/fast-json-stringify-compiler, the one Fastify itself uses), with the same shared
 * schemas; only the moment of compiling moves, so start-up does not pay for responses that are
 * never sent (errors of rare routes, media types rendered otherwise). docs/adr/0022.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

/**
 * A `schemaController.compilersFactory.buildSerializer` for Fastify: as Fastify's default, but each
 * serializer is compiled at its first call.
 * @throws at that first call, what fast-json-stringify throws for a schema it cannot compile
 */
export function lazySerializerFactory(): Factory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
