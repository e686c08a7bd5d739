/** Route schema of GET /rate_limit (api-v2.md "Reference data and limits", "Limits" 3; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import { documented, errors, JSONP_PARAM, OPTIONAL_TOKEN, response, SUFFIX_NOTE } from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';

/** GET /rate_limit — the caller's window; not rate limited (no X-RateLimit headers). */
export const getRateLimit = documented({
  summary: "The caller's rate-limit window",
  description:
    'With a valid token the window of the token\'s (user, client), else of the client IP (api-v2.md "Limits", docs/api.md "Rate limits"). ' +
    `This resource is not rate limited: not counted, no X-RateLimit headers. ${SUFFIX_NOTE}`,
  tags: ['rate limit'],
  security: OPTIONAL_TOKEN,
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('Rate-limit body', ref('RateLimit'), { xmlRoot: 'rate_limit', rateLimited: false }),
    ...errors([], { rateLimited: false }),
  },
});
