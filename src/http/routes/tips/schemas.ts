/** Route schemas of the tips endpoints (api-v2.md "Endpoints / Tips", DECISIONS.md "Tips", docs/api.md "Tips"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  formBody,
  JSONP_PARAM,
  LIST_PARAMS,
  OPTIONAL_TOKEN,
  params,
  response,
  SUFFIX_NOTE,
  thingIdParam,
  token,
  USERNAME,
} from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';
import { FEED_LIST_FORMATS } from '../../../formats/negotiation.ts';
import { WIRE } from '../../params.ts';
import { defineWire } from '../../schemas/wire.ts';
import { single } from '../../../domain/input.ts';
import { InvalidRequestError } from '../../../domain/errors.ts';
import { parseHttpUrl } from '../../../domain/urls.ts';

/**
 * The `url` of `POST /tip`: an absolute http(s) URL (first of repeated ones), untrimmed as sent.
 * @throws InvalidRequestError
 */
export function parseTipUrl(raw: unknown): string {
  const v = single(raw);
  if (typeof v !== 'string' || !parseHttpUrl(v.trim()))
    throw new InvalidRequestError('The url parameter must be an absolute http or https URL', 'tips');
  return v;
}
const TIP_URL = defineWire('tip.url', parseTipUrl);

const listQuery = Type.Object({ ...LIST_PARAMS, ...JSONP_PARAM });
const tipsList = response(
  'Array of Tip, newest first; `.as`/`.atom`: the tips as `like` activities',
  Type.Array(ref('Tip')),
  {
    formats: FEED_LIST_FORMATS,
    xmlRoot: 'tips',
  },
);
const confirmation = response('`{message: "ok", description, thing}` with the confirmation thing', ref('Confirmation'));
const tipErrors = errors(['invalid_request', 'insufficient_scope', 'tip_once', 'tip_owner', 'no_means', 'not_found']);

/** GET /users/:username/tips */
export const listUserTips = documented({
  summary: "List a user's tips",
  description:
    '200 `[]` when the user hides their tips or has given none; 404 `not_found` for an unknown user (api-v2.md "Endpoints / Tips"). ' +
    `Paged, newest first. ${SUFFIX_NOTE}`,
  tags: ['tips'],
  security: OPTIONAL_TOKEN,
  params: params(USERNAME),
  querystring: listQuery,
  response: { 200: tipsList, ...errors(['not_found']) },
});

/** GET /user/tips */
export const listOwnTips = documented({
  summary: "List the caller's tips",
  description: `Token, any scope; no token → 401 \`unauthorized\` (api-v2.md "Endpoints / Tips"). Paged, newest first. ${SUFFIX_NOTE}`,
  tags: ['tips'],
  security: token(),
  querystring: listQuery,
  response: { 200: tipsList, ...errors([]) },
});

/** GET /things/:id/tips */
export const listThingTips = documented({
  summary: 'List the tips of a thing',
  description:
    'Token required, any scope (api-v2.md "Endpoints / Tips"); tips of users who hide theirs are left out except their own. ' +
    `Paged, newest first. ${SUFFIX_NOTE}`,
  tags: ['tips'],
  security: token(),
  params: params(thingIdParam()),
  querystring: listQuery,
  response: { 200: tipsList, ...errors(['not_found']) },
});

/** POST /things/:id/tip */
export const tipThing = documented({
  summary: 'Tip a thing',
  description:
    'Scope `tip`. One tip per user, thing and calendar month (UTC). Checks in order: the thing exists (404), it is not yours ' +
    '(403 `tip_owner`), you have means (401 `no_means`), not tipped this period (403 `tip_once`) (api-v2.md "Endpoints / Tips", docs/api.md "Tips").',
  tags: ['tips'],
  security: token('tip'),
  params: params(thingIdParam(WIRE.tipThingId)),
  querystring: Type.Object(JSONP_PARAM),
  response: { 200: confirmation, ...tipErrors },
});

/** POST /tip */
export const tipUrl = documented({
  summary: 'Tip a URL',
  description:
    "Scope `tip`. `url`: a registered thing's URL, an auto-submit URL (`{site_url}/submit/auto?url=…&user_id=…` or `owner=<identity>`; " +
    'an unregistered inner URL is created and tipped in one transaction), or a URL whose page links an auto-submit URL with ' +
    '`rel="payment"` (api-v2.md "Endpoints / Tips", docs/api.md "Tips", "Discovery"). Another URL → 404; a missing or malformed one → 400 `invalid_request`.',
  tags: ['tips'],
  security: token('tip'),
  ...formBody(Type.Object({ url: Type.String({ description: 'a tippable URL', 'x-wire': TIP_URL }) })),
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: confirmation,
    ...errors([
      'invalid_request',
      'validation',
      'insufficient_scope',
      'tip_once',
      'tip_owner',
      'no_means',
      'not_found',
    ]),
  },
});
