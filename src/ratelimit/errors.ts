/** The rate-limit error (api-v2.md "Limits" 2): 403 `rate_limit_exceeded` in the error shape. */
import { DomainError } from '../domain/errors.ts';
import { httpDate } from './window.ts';

export class RateLimitExceededError extends DomainError {
  /**
   * @param limit the hourly allowance that was exceeded
   * @param reset Unix seconds at which the window ends and the allowance renews
   */
  constructor(limit: number, reset: number) {
    super(
      'rate_limit_exceeded',
      `Rate limit exceeded: ${limit} requests per hour; the allowance renews at ${httpDate(reset)}`,
      'limits',
    );
  }
}
