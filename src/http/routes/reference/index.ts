/** Reference data (api-v2.md "Reference data and limits"): categories and languages. */
import type { FastifyInstance } from 'fastify';
import { CATEGORIES, LANGUAGES } from '../../../domain/reference.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

export function referenceRoutes(app: FastifyInstance): void {
  /** GET /categories — the seven categories `{id, name}` in the spec's order. */
  app.get('/categories', withConfig(docs.listCategories, { xmlRoot: 'categories' }), async () => CATEGORIES);
  /** GET /languages — the 44 languages `{id, text}`, English first. */
  app.get('/languages', withConfig(docs.listLanguages, { xmlRoot: 'languages' }), async () => LANGUAGES);
}
