/**
 * The keys of the API's representations, for tests that check a response's exact key set
 * (api-v2.md "Thing"; DECISIONS.md "Wire format"). One list, so a field added to the spec is added
 * once here.
 */

/** Thing, full representation, in the presenter's order (src/http/presenters.ts presentThing). */
export const FULL_THING_KEYS: readonly string[] = [
  'type',
  'resource',
  'link',
  'id',
  'url',
  'language',
  'category',
  'owner',
  'hidden',
  'image',
  'created_at',
  'tags',
  'tips',
  'tips_user_count',
  'description',
  'title',
];
