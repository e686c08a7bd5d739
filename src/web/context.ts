/** What the website's route modules share (src/web/index.ts builds it), and small helpers they use. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import type { Services } from '../domain/services.ts';
import type { WebLimits } from './limits.ts';

/** A confirmation page (WebContext.confirm). */
export interface ConfirmPage {
  title: string;
  explanation: string[];
  action: string;
  button: string;
  cancel: string;
}

/** What the website's route modules share. */
export interface WebContext {
  services: Services;
  config: Config;
  /** the site is https: cookies are Secure */
  secure: boolean;
  /** pages, password forms, sign-ups and failed log-ins (limits.ts) */
  limits: WebLimits;
  /** Renders a page inside the layout (see render.ts sendPage). */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: Record<string, unknown> & { title: string; notice?: string },
    status?: number,
  ): FastifyReply;
  /**
   * Renders the confirmation page of a destructive action (view confirm.eta): `explanation`
   * paragraphs, a form posting `confirm=1` to `action` with `button`, and a Cancel link to
   * `cancel`. `status` 200, or 400 when a POST came without the confirmation (the page then says
   * nothing was changed).
   */
  confirm(request: FastifyRequest, reply: FastifyReply, page: ConfirmPage, status?: 200 | 400): FastifyReply;
  /** Renders the error page with `status`. */
  errorPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    heading: string,
    message: string,
  ): FastifyReply;
}

/** "N minutes" (at least one) for a wait of `seconds`. */
export function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
