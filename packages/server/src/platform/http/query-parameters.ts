import type { FastifyInstance, FastifySchemaCompiler, RouteOptions } from 'fastify';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';

const strictForms = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * Fastify's validator for zod schemas, with one difference: a query string may carry only the
 * parameters its schema names. A misspelt one (`?userid=8`) would otherwise be dropped without a
 * word and the answer look like "no data"; now it is a 400 ERR_VALIDATION naming the parameter.
 */
export const strictQueryValidatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const { schema, httpPart } = route;
  if (httpPart !== 'querystring' || !(schema instanceof z.ZodObject)) return validatorCompiler(route);
  let strict = strictForms.get(schema);
  if (!strict) strictForms.set(schema, (strict = schema.strict()));
  return validatorCompiler({ ...route, schema: strict });
};

/** A route of `instance` that declares no query parameters takes none: the same answer for `?anything`. */
export function refuseUndeclaredQueryParameters(instance: FastifyInstance): void {
  instance.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema && !route.schema.querystring) route.schema = { ...route.schema, querystring: z.object({}) };
  });
}
