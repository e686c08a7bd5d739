/** Route schemas of the activity feeds (api-v2.md "Endpoints / Activities", DECISIONS.md "Activities"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  JSONP_PARAM,
  OPTIONAL_TOKEN,
  params,
  response,
  token,
  USERNAME,
} from '../../schemas/common.ts';
import { ACTIVITY_FORMATS } from '../../../formats/negotiation.ts';
import { defineWire } from '../../schemas/wire.ts';
import { parseActivityType } from '../../../domain/activities.ts';

const query = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('outgoing'), Type.Literal('incoming')], {
      default: 'outgoing',
      description:
        '`outgoing` (what the user did, default) or `incoming` (what others did to their things), in any case; else 400 `invalid_parameters`',
      'x-wire': defineWire('activity.type', parseActivityType),
    }),
  ),
  ...JSONP_PARAM,
});
const feed = response('The newest 100 activities: Activity Streams (`.as`, the default) or Atom (`.atom`)', undefined, {
  formats: ACTIVITY_FORMATS,
});
const FORMATS =
  'Formats: `.as` / `Accept: application/stream+json` (default) or `.atom` / `Accept: application/atom+xml`; JSON and XML → 406 `not_acceptable`.';

/** GET /users/:username/activities */
export const userActivities = documented({
  summary: "A user's activity feed",
  description: `Public; hidden things only for their owner; 404 \`not_found\` for an unknown user (api-v2.md "Endpoints / Activities"). ${FORMATS}`,
  tags: ['activities'],
  security: OPTIONAL_TOKEN,
  params: params(USERNAME),
  querystring: query,
  response: { 200: feed, ...errors(['not_found'], { formats: ['json'] }) },
});

/** GET /user/activities */
export const ownActivities = documented({
  summary: "The caller's activity feed",
  description: `Token, any scope (api-v2.md "Endpoints / Activities"). ${FORMATS}`,
  tags: ['activities'],
  security: token(),
  querystring: query,
  response: { 200: feed, ...errors([], { formats: ['json'] }) },
});
