/** Route schemas of the users endpoints (api-v2.md "Endpoints / Users"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  JSONP_PARAM,
  params,
  PUBLIC,
  response,
  SUFFIX_NOTE,
  token,
  USERNAME,
} from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';

/** GET /users/:username — the public User. */
export const getUser = documented({
  summary: 'Get a user',
  description: `The public User (api-v2.md "Endpoints / Users", "User"); 404 \`not_found\` for an unknown user. ${SUFFIX_NOTE}`,
  tags: ['users'],
  security: PUBLIC,
  params: params(USERNAME),
  querystring: Type.Object(JSONP_PARAM),
  response: { 200: response('User', ref('User')), ...errors(['not_found']) },
});

/** GET /user — the caller. */
export const getOwnUser = documented({
  summary: 'Get the current user',
  description: `The caller's User; with scope \`extendedread\` also \`email\`, \`email_verified\` (an extension), \`registered_at\` and the budget (api-v2.md "Endpoints / Users"; docs/api.md "Users"). ${SUFFIX_NOTE}`,
  tags: ['users'],
  security: token(),
  querystring: Type.Object(JSONP_PARAM),
  response: { 200: response('User', ref('User')), ...errors(['unauthorized']) },
});
