/**
 * JSONP (api-v2.md conventions 4, DECISIONS.md "Formats and protocol"): `?jsonp=callback` wraps
 * the JSON body as `/**\/callback(<json>);`, sent as `application/javascript;charset=utf-8` with
 * the real status.
 */

/** A callback name JSONP accepts: a JavaScript identifier path such as `handle` or `app.cb`, at most 128 characters. */
export function isJsonpCallback(callback: string): boolean {
  return callback.length <= 128 && JSONP_CALLBACK.test(callback);
}

const JSONP_CALLBACK = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/** `json` (JSON text) wrapped in a call of `callback` (already checked with isJsonpCallback). */
export function wrapJsonp(callback: string, json: string): string {
  // U+2028/2029 are valid in JSON but not in older JavaScript string literals.
  return `/**/${callback}(${json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')});`;
}
