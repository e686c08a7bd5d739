/** Route schemas of the reference data (api-v2.md "Reference data and limits"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import { documented, errors, JSONP_PARAM, PUBLIC, response, SUFFIX_NOTE } from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';

/** GET /categories — the seven categories. */
export const listCategories = documented({
  summary: 'List the categories',
  description: `The seven categories \`{id, name}\` in the spec's order (api-v2.md "Reference data and limits", "Category"). ${SUFFIX_NOTE}`,
  tags: ['reference'],
  security: PUBLIC,
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('Array of Category', Type.Array(ref('Category')), { xmlRoot: 'categories' }),
    ...errors([]),
  },
});

/** GET /languages — the 44 languages. */
export const listLanguages = documented({
  summary: 'List the languages',
  description: `The 44 languages \`{id, text}\`, English first (api-v2.md "Reference data and limits", "Language"). ${SUFFIX_NOTE}`,
  tags: ['reference'],
  security: PUBLIC,
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('Array of Language', Type.Array(ref('Language')), { xmlRoot: 'languages' }),
    ...errors([]),
  },
});
