/** Route schemas of the subscriptions endpoints (api-v2.md "Endpoints / Subscriptions", "States and transitions"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  JSONP_PARAM,
  noContent,
  params,
  response,
  SUFFIX_NOTE,
  thingIdParam,
  token,
} from '../../schemas/common.ts';
import { WIRE } from '../../params.ts';
import { ref } from '../../schemas/representations.ts';

/** GET /user/subscriptions */
export const listSubscriptions = documented({
  summary: "List the caller's subscriptions",
  description: `Scope \`tip\`. Active and paused, newest first, not paged (api-v2.md "Endpoints / Subscriptions"). ${SUFFIX_NOTE}`,
  tags: ['subscriptions'],
  security: token('tip'),
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('Array of Subscription', Type.Array(ref('Subscription')), { xmlRoot: 'subscriptions' }),
    ...errors(['insufficient_scope']),
  },
});

/** POST /things/:id/subscriptions */
export const subscribe = documented({
  summary: 'Subscribe to a thing',
  description:
    'Scope `tip`. Subscribes and tips the thing for the current period unless already tipped (api-v2.md "Endpoints / Subscriptions", ' +
    'docs/api.md "Subscriptions"). 403 `thing_owner` for your own thing, 403 `subscribed` when already subscribed.',
  tags: ['subscriptions'],
  security: token('tip'),
  params: params(thingIdParam(WIRE.subscriptionThingId)),
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('`{message: "ok", description, thing}` with the confirmation thing', ref('Confirmation')),
    ...errors(['insufficient_scope', 'thing_owner', 'subscribed', 'not_found']),
  },
});

/** PUT /things/:id/subscriptions */
export const toggleSubscription = documented({
  summary: 'Pause or restart a subscription',
  description:
    'Scope `tip`. Toggles: active → `{message: "paused"}`, paused → `{message: "started"}` (api-v2.md "States and transitions"). The body is ignored.',
  tags: ['subscriptions'],
  security: token('tip'),
  params: params(thingIdParam(WIRE.subscriptionThingId)),
  querystring: Type.Object(JSONP_PARAM),
  response: {
    200: response('Message body, message `started` or `paused`', ref('Message')),
    ...errors(['insufficient_scope', 'not_found']),
  },
});

/** DELETE /things/:id/subscriptions */
export const unsubscribe = documented({
  summary: 'Unsubscribe from a thing',
  description:
    'Scope `tip`. 204 with an empty body; 404 `not_found` without a subscription (api-v2.md "Endpoints / Subscriptions").',
  tags: ['subscriptions'],
  security: token('tip'),
  params: params(thingIdParam(WIRE.subscriptionThingId)),
  querystring: Type.Object(JSONP_PARAM),
  response: { 204: noContent('Unsubscribed'), ...errors(['insufficient_scope', 'not_found']) },
});
