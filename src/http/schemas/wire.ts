/**
 * Input parsed once, at the edge (docs/adr/0022-edge-parsing-and-serialization.md): the route's
 * params, querystring and body schemas are compiled by Ajv into validators that also turn the
 * wire's lenient forms (DECISIONS.md "Wire format", "Pagination and `full`") into typed values.
 *
 * A property schema carrying `x-wire: <parser name>` is parsed by that parser (WIRE_PARSERS): the
 * Ajv keyword `x-wire` replaces the raw value (string, repeated parameter as an array, JSON value)
 * by the parser's result, or fails with the parser's DomainError, whose code and message are the
 * API's (invalid_parameters for query parameters, validation / invalid_request for bodies,
 * not_found for a path id). A `default` on such a property is parsed when the property is absent;
 * a required one that is absent fails with its parser's error for `undefined`. Everything else in
 * the schema (types, patterns, lengths) documents the wire for OpenAPI and is not enforced here:
 * the parsers are the rules, and unknown parameters are ignored.
 *
 * The route is registered with `attachValidation`: the handler calls `parsed(request)` after its
 * token checks, so a missing token still answers 401 before a bad parameter answers 400.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { DataValidateFunction } from 'ajv/dist/types/index.js';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { DomainError } from '../../domain/errors.ts';

/** A wire parser: the raw value (undefined when absent) → the typed value. @throws DomainError */
export type WireParser = (raw: unknown) => unknown;

const WIRE_PARSERS = new Map<string, WireParser>();

/** Registers the parser `name` for `x-wire: name` (once per name, at module load). */
export function defineWire(name: string, parse: WireParser): string {
  if (WIRE_PARSERS.has(name) && WIRE_PARSERS.get(name) !== parse) throw new Error(`x-wire ${name} defined twice`);
  WIRE_PARSERS.set(name, parse);
  return name;
}

function parserOf(name: string): WireParser {
  const parse = WIRE_PARSERS.get(name);
  if (!parse) throw new Error(`unknown x-wire parser ${name}`);
  return parse;
}

interface WireErrorParams {
  error: DomainError;
}

// `validateSchema: false`: the schemas compiled here are built by `wireSchema` from one fixed
// template (object, `x-wire` properties with their defaults, `required`), so checking each against
// the JSON Schema meta-schema at every start would only cost time.
const ajv = new Ajv({ strict: false, allErrors: false, useDefaults: true, coerceTypes: false, validateSchema: false });
ajv.addKeyword({
  keyword: 'x-wire',
  modifying: true,
  errors: true,
  schemaType: 'string',
  compile(name: string) {
    const parse = parserOf(name);
    const validate: DataValidateFunction = (data, cxt) => {
      try {
        const value = parse(data);
        if (cxt) (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = value;
        return true;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        validate.errors = [{ keyword: 'x-wire', message: error.message, params: { error } satisfies WireErrorParams }];
        return false;
      }
    };
    return validate;
  },
});

type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * The part of `schema` (an object schema of params, querystring or body) that the edge checks:
 * its `x-wire` properties, with their defaults and requiredness; undefined when it has none.
 */
function wireSchema(schema: Schema): { schema: Schema; parsers: Map<string, WireParser> } | undefined {
  const properties: Record<string, Record<string, unknown>> = {};
  const parsers = new Map<string, WireParser>();
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const wire = prop['x-wire'];
    if (typeof wire !== 'string') continue;
    parsers.set(name, parserOf(wire));
    properties[name] = { 'x-wire': wire, ...(prop.default !== undefined ? { default: prop.default } : {}) };
  }
  if (parsers.size === 0) return undefined;
  const required = (schema.required ?? []).filter((r) => parsers.has(r));
  return { schema: { type: 'object', properties, ...(required.length ? { required } : {}) }, parsers };
}

/** The DomainError of the first Ajv failure: a parser's own, or its parser's for a missing property. */
function domainError(errors: ErrorObject[] | null | undefined, parsers: Map<string, WireParser>): DomainError {
  const first = errors?.[0];
  if (first?.keyword === 'x-wire') return (first.params as WireErrorParams).error;
  if (first?.keyword === 'required') {
    const missing = (first.params as { missingProperty: string }).missingProperty;
    try {
      parsers.get(missing)?.(undefined);
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }
  return new DomainError('invalid_request', 'The request could not be parsed');
}

/** Validators compiled, by their wire schema's JSON: routes that take the same parameters share one. */
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The route-level validatorCompiler of every documented route: runs the `x-wire` parsers of the
 * part's schema over the request's value (a body that is not a JSON object or form, e.g. empty,
 * counts as `{}`) and stores the parsed value; answers `{error}` with the DomainError to report.
 * A part without `x-wire` properties is passed through unchanged.
 */
export const wireValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const wire = wireSchema(schema as Schema);
  if (!wire) return () => true;
  const key = JSON.stringify(wire.schema);
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = ajv.compile(wire.schema)));
  return (data: unknown) => {
    const value = plainObject(data) ? data : httpPart === 'body' ? {} : Object.create(null);
    return validate(value) ? { value } : { error: domainError(validate.errors, wire.parsers) };
  };
};

/**
 * The request's parsed input: throws the DomainError of its first invalid part (params, then
 * body, then querystring). Call after the route's token checks.
 */
export function parsed<R extends FastifyRequest>(request: R): R {
  const err = request.validationError;
  if (err) throw err instanceof DomainError ? err : new DomainError('invalid_request', err.message);
  return request;
}
