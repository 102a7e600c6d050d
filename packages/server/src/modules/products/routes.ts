import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import type { FastifyRequest } from 'fastify';
import { type Product, product, productFields, productList, productListQuery, productUpdate } from '@lm/contract/product';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, maySee, visibleFields, visibleItems } from '../../platform/http/auth.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { createProduct, deleteProduct, getProduct, listProducts, productVersions, updateProduct } from './service.ts';

const tags = ['products'];

/** A product as the caller's GET shows it (staff fields only to staff). */
const shown = (request: FastifyRequest, record: Product) => visibleFields(request, 'Product', record);

export function productRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/products',
      {
        schema: {
          tags,
          summary: 'List products; active filters, resolveFeatures applies expand-to-features, featureNames keeps products having all of them',
          querystring: productListQuery,
          response: { 200: productList, ...errorResponses },
        },
      },
      async (request) => {
        authorize(request, 'view-list', 'Product');
        return visibleItems(request, 'Product', await listProducts(ctx, { ...request.query, searchNotes: maySee(request, 'Product', 'notes') }));
      },
    );

    app.get(
      '/products/:id',
      { schema: { tags, summary: 'One product, with its ETag', params: idParam, response: { 200: product, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => {
        authorize(request, 'view', 'Product');
        return withEtag(reply, shown(request, await getProduct(ctx, request.params.id)));
      },
    );

    app.get(
      '/products/:id/versions',
      { schema: { tags, summary: 'The products of the same name, ordered by version', params: idParam, response: { 200: productList, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view', 'Product');
        return visibleItems(request, 'Product', await productVersions(ctx, request.params.id));
      },
    );

    app.post(
      '/products',
      { schema: { tags, summary: 'Create a product', body: productFields, response: { 201: product, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'create', 'Product');
        return reply.status(201).send(await createProduct(ctx, actorOf(request), request.body));
      },
    );

    app.put(
      '/products/:id',
      {
        schema: {
          tags,
          summary: 'Change a product; a field left out keeps its value; with If-Match only while the product is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: productUpdate,
          response: { 200: product, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => {
        authorize(request, 'update', 'Product');
        const updated = await updateProduct(ctx, actorOf(request), request.params.id, request.body, preconditionOf(request, (record: Product) => shown(request, record)));
        return withEtag(reply, shown(request, updated));
      },
    );

    app.delete(
      '/products/:id',
      {
        schema: {
          tags,
          summary: 'Delete a product no TAN or license uses; with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        authorize(request, 'delete', 'Product');
        await deleteProduct(ctx, actorOf(request), request.params.id, preconditionOf(request, (record: Product) => shown(request, record)));
        return reply.status(204).send(null);
      },
    );
  };
}
