/**
 * `@tipjar/client`: a typed client for the Tipjar micro-tipping REST API v2, generated from the
 * server's OpenAPI document (README.md of this package; docs/adr/0027-typed-client.md).
 */
export {
  Tipjar,
  Things,
  Tips,
  Users,
  Me,
  Subscriptions,
  Activities,
  type TipjarOptions,
  type Thing,
  type ThingShort,
  type ThingConfirmation,
  type Owner,
  type UserSummary,
  type User,
  type Tip,
  type Subscription,
  type Category,
  type Language,
  type SearchResult,
  type ActivityStream,
  type Message,
  type Creation,
  type Confirmation,
  type RateLimit,
  type NewThing,
  type ThingChanges,
  type SearchCriteria,
  type ActivityType,
  type FullOption,
  type ListOptions,
} from './client.ts';
export {
  TipjarError,
  RateLimitError,
  type ErrorCode,
  type ApiErrorCode,
  type OAuthErrorCode,
  type RateLimitHeaders,
} from './errors.ts';
export { Paged } from './paging.ts';
export {
  OAuth,
  pkcePair,
  type Scope,
  type OAuthToken,
  type OAuthMetadata,
  type ClientCredentials,
  type AuthorizationRequest,
  type Authorization,
  type CodeExchange,
} from './oauth.ts';
export type { paths, components } from './openapi.ts';
