/**
 * One-time messages after a form (POST-redirect-GET): the POST handler answers 303 with a short-lived
 * cookie naming a notice (a fixed key such as `tipped`, never the visitor's input); the next page
 * that renders shows the notice (src/web/routes/form.ts noticeOf) and clears the cookie
 * (src/web/render.ts sendPage), so a reload shows it no more.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieOptions } from './sessions.ts';

/** The cookie carrying the notice key: HttpOnly, SameSite=Lax, path `/`. */
export const FLASH_COOKIE = 'tipjar_flash';

/** How long a notice waits for the page it was meant for, in seconds. */
export const FLASH_TTL_SECONDS = 60;

/** A notice key: letters, digits and dashes (what the notice tables use). */
const KEY = /^[a-z0-9-]{1,40}$/;

/**
 * Answers 303 to `location` with the one-time notice `key` (looked up in the page's notice texts
 * when the page renders; an unknown key shows nothing).
 * @param secure the site is https: the cookie is Secure
 */
export function redirectWithFlash(reply: FastifyReply, location: string, key: string, secure: boolean): FastifyReply {
  reply.setCookie(FLASH_COOKIE, key, cookieOptions(secure, FLASH_TTL_SECONDS));
  return reply.code(303).redirect(location);
}

/** The notice key the request's flash cookie carries, or '' (none, or not a key). */
export function flashOf(request: FastifyRequest): string {
  const v = request.cookies?.[FLASH_COOKIE];
  return typeof v === 'string' && KEY.test(v) ? v : '';
}

/** Clears the flash cookie when the request carried one: the page being sent shows it. */
export function clearFlash(request: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  if (request.cookies?.[FLASH_COOKIE] !== undefined) reply.clearCookie(FLASH_COOKIE, cookieOptions(secure));
}
