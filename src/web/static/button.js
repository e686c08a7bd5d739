/*
 * Tipjar button script, served at {SITE_URL}/js/button.js for creators' own sites (plain ES2017,
 * no build step). Include it once:
 *
 *   <a class="tipjar-button" href="{SITE_URL}/submit/auto?url=…&user_id=…">Tip on Tipjar</a>
 *   <a class="tipjar-button" data-tipjar-thing="42" href="{SITE_URL}/thing/42">Tip on Tipjar</a>
 *   <script src="{SITE_URL}/js/button.js" async></script>
 *
 * Every `a.tipjar-button` link and every element with `data-tipjar-thing="id"` becomes a button
 * "♥ Tip | N" with the thing's tip count, read from the public API (`GET /things/:id`, or
 * `GET /things/lookup?url=` for an auto-submit link; no cookies sent). Links keep their address,
 * so they work without this script and when the API cannot be reached; a hidden or unknown thing
 * shows no count. The text of the page is never parsed as HTML. `window.TipjarButton.scan()`
 * converts elements added later.
 */
/* global window, document, fetch */
(function () {
  'use strict';
  var SITE = '__TIPJAR_SITE__';
  var API = '__TIPJAR_API__';
  if (window.TipjarButton) return;

  var DONE = 'data-tipjar-done';
  var requests = {};

  /** The API address that answers with the element's thing, or '' when it names none. */
  function sourceOf(el) {
    var id = el.getAttribute('data-tipjar-thing');
    if (id && /^\d{1,15}$/.test(id)) return API + '/things/' + id;
    if (el.tagName !== 'A') return '';
    var href = el.href || '';
    var m = href.match(/^(https?:\/\/[^/?#]+)\/thing\/(\d{1,15})(?:[/?#]|$)/);
    if (m && m[1] === SITE) return API + '/things/' + m[2];
    if (href.indexOf(SITE + '/submit/auto?') === 0) return API + '/things/lookup?url=' + encodeURIComponent(href);
    return '';
  }

  /** The thing at `url` (one request per address): the thing, `null` when there is none yet, or undefined on failure. */
  function load(url) {
    if (!requests[url]) {
      requests[url] = fetch(url, { credentials: 'omit', headers: { Accept: 'application/json' } })
        .then(function (res) {
          if (res.status === 404) return null;
          if (!res.ok) return undefined;
          return res.json();
        })
        .catch(function () {
          return undefined;
        });
    }
    return requests[url];
  }

  function style(el, rules) {
    for (var k in rules) el.style[k] = rules[k];
  }

  /** Makes `el` (or a link inside it) a button with `count` (a number, or null for none). */
  function render(el, thing, count) {
    var link = el;
    if (el.tagName !== 'A') {
      link = document.createElement('a');
      link.href = SITE + '/thing/' + thing.id;
      el.textContent = '';
      el.appendChild(link);
    }
    if (!link.getAttribute('target')) {
      link.setAttribute('target', '_blank');
      link.setAttribute('rel', 'noopener');
    }
    var text = (link.textContent || '').replace(/\s+/g, ' ').trim() || 'Tip on Tipjar';
    var tips = count === 1 ? '1 tip' : count + ' tips';
    link.setAttribute('aria-label', count === null ? text : text + ' (' + tips + ')');
    link.textContent = '';
    var label = document.createElement('span');
    label.textContent = '\u2665 Tip';
    label.setAttribute('aria-hidden', 'true');
    style(label, { background: '#0b5fff', color: '#fff', padding: '0 10px' });
    link.appendChild(label);
    if (count !== null) {
      var n = document.createElement('span');
      n.textContent = new Intl.NumberFormat('en').format(count);
      n.setAttribute('aria-hidden', 'true');
      style(n, { background: '#fff', color: '#1d2430', padding: '0 10px' });
      link.appendChild(n);
    }
    style(link, {
      display: 'inline-flex',
      height: '28px',
      borderRadius: '14px',
      overflow: 'hidden',
      textDecoration: 'none',
      border: '1px solid #0b5fff',
      boxSizing: 'border-box',
      font: '600 14px/26px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      verticalAlign: 'middle',
    });
    el.classList.add('tipjar-ready');
  }

  /** Converts every marked element not converted yet. */
  function scan() {
    var els = document.querySelectorAll('a.tipjar-button, [data-tipjar-thing]');
    Array.prototype.forEach.call(els, function (el) {
      if (el.hasAttribute(DONE)) return;
      var url = sourceOf(el);
      if (!url) return;
      el.setAttribute(DONE, '');
      load(url).then(function (thing) {
        if (thing === undefined || (thing && (thing.hidden || typeof thing.tips !== 'number'))) return;
        if (thing === null) {
          // An auto-submit link to a thing not registered yet (its first tip creates it): 0 tips.
          if (url.indexOf(API + '/things/lookup?') === 0) render(el, null, 0);
          return;
        }
        render(el, thing, thing.tips);
      });
    });
  }

  window.TipjarButton = { scan: scan };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  else scan();
})();
