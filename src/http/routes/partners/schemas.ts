/** Route schemas of partner verification (api-v2.md "Partner verification"; docs/api.md "Verification and claiming"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import { documented, errors, formBody, JSONP_PARAM, params, response, token, USERNAME } from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';
import { WIRE } from '../../params.ts';

const identity = Type.String({
  'x-wire': WIRE.text,
  description: 'the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`)',
});
const common = {
  tags: ['partners'],
  security: token(),
  ...formBody(Type.Object({ identity: Type.Optional(identity) }), { optional: true }),
  querystring: Type.Object({ identity: Type.Optional(identity), ...JSONP_PARAM }),
  response: {
    200: response('`{message: "ok", description}`; the pending things of the identity are claimed', ref('Message')),
    ...errors([]),
  },
};

/** POST /user/verify */
export const verifyOwn = documented({
  summary: 'Verify a partner-side identity of the caller',
  description:
    "With a token issued to a partner's client: associates `identity` (body or query) with the token's user and claims its pending things " +
    '(api-v2.md "Partner verification"). 401 `unauthorized` when not logged in, not a partner\'s token, the identity is malformed, ' +
    "outside the partner's namespace, or verified by another user.",
  ...common,
});

/** POST /users/:username/verify */
export const verifyUser = documented({
  summary: 'Verify a partner-side identity of a user',
  description: "As POST /user/verify; the token's user must be `username` (else 401 `unauthorized`).",
  params: params(USERNAME),
  ...common,
});
