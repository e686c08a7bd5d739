/**
 * Creators' pages: `/things/new` (register a thing) and `/thing/:id/edit` (change one's own thing),
 * through the API's own validation (src/domain/thing-input.ts, the parsers of `POST /things` and
 * `PATCH /things/:id`) and domain functions (createThing, updateThing in src/domain/things.ts), so
 * the website accepts and refuses exactly what the API does, with the same messages
 * (DECISIONS.md "Things"). Log-in required; editing is for the owner only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, NotFoundError } from '../../domain/errors.ts';
import { CATEGORIES, LANGUAGES } from '../../domain/reference.ts';
import {
  MAX_DESCRIPTION,
  MAX_TITLE,
  parseCategory,
  parseDescription,
  parseHidden,
  parseLanguage,
  parseNewThing,
  parseTags,
  parseTitle,
  thingChanges,
} from '../../domain/thing-input.ts';
import { createThing, getThing, lookupThing, ownThing, updateThing } from '../../domain/things.ts';
import type { ThingRecord } from '../../domain/records.ts';
import { redirectWithFlash } from '../flash.ts';
import { sessionPrincipal } from '../sessions.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, toLogin } from './form.ts';
import { pageId } from './pages.ts';

/** The form's fields as shown (text as typed, or the thing's values). */
export interface ThingForm {
  url: string;
  title: string;
  description: string;
  category: string;
  language: string;
  tags: string;
  hidden: boolean;
}

/** An empty form: the API's defaults (category `rest`, language `en_GB`). */
const EMPTY: ThingForm = {
  url: '',
  title: '',
  description: '',
  category: 'rest',
  language: 'en_GB',
  tags: '',
  hidden: false,
};

/** The form's fields from a thing (tags comma-separated). */
function formOfThing(t: ThingRecord): ThingForm {
  return {
    url: t.url,
    title: t.title,
    description: t.description,
    category: t.category,
    language: t.language,
    tags: t.tags.join(', '),
    hidden: t.hidden,
  };
}

/** The form's fields as sent (a missing checkbox is `hidden: false`). */
function sentForm(request: FastifyRequest): ThingForm {
  const f = formOf(request);
  return {
    url: field(f, 'url'),
    title: field(f, 'title'),
    description: field(f, 'description'),
    category: field(f, 'category'),
    language: field(f, 'language'),
    tags: field(f, 'tags'),
    hidden: field(f, 'hidden') !== '',
  };
}

/** The API's value of the hidden checkbox: `1` when ticked, `0` when not (parseHidden accepts both). */
const hiddenValue = (form: ThingForm): string => (form.hidden ? '1' : '0');

/** Registers GET/POST /things/new and GET/POST /thing/:id/edit on the website plugin. */
export function creatorRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /**
   * Renders the thing form: `thing` set → editing it (url shown, not editable), else a new thing.
   * `extra.existing`: a thing the visitor may see that already has the URL (linked).
   */
  function render(
    request: FastifyRequest,
    reply: FastifyReply,
    form: ThingForm,
    extra: { thing?: ThingRecord; error?: string; existing?: ThingRecord },
    status = 200,
  ): Promise<FastifyReply> | FastifyReply {
    return ctx.page(
      request,
      reply,
      './thing-form',
      {
        title: extra.thing ? `Edit ${extra.thing.title || extra.thing.url}` : 'Add a thing',
        form,
        categories: CATEGORIES,
        languages: LANGUAGES,
        maxTitle: MAX_TITLE,
        maxDescription: MAX_DESCRIPTION,
        ...extra,
      },
      status,
    );
  }

  /** GET /things/new — the form to register a thing (url, title, description, category, language, tags, hidden). Log-in required. */
  app.get('/things/new', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return render(request, reply, EMPTY, {});
  });

  /**
   * POST /things/new — fields url (absolute http(s), ≤ 2048), title (≤ 100), description (≤ 1000),
   * category and language (ids of GET /categories and /languages), tags (comma-separated), hidden
   * (checkbox), _csrf; validated as `POST /things` (parseNewThing) and registered by createThing.
   * Success: 303 to `/thing/:id` with the one-time notice `thing-created`. Invalid input: 400, the
   * form as sent with the API's message, nothing written; a URL already registered: 400 with a
   * link to that thing when the visitor may see it (not hidden, or their own), else the message
   * without the thing's id. Not logged in: to the log-in page, then back to the form.
   */
  app.post('/things/new', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/things/new');
    const principal = sessionPrincipal(request.webSession);
    const form = sentForm(request);
    let id: number;
    try {
      const input = parseNewThing({ ...form, hidden: hiddenValue(form) });
      id = await createThing(s, principal, input);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'validation') throw err;
      let existing: ThingRecord | undefined;
      let error = err.message;
      if (error.startsWith('Invalid url: already registered')) {
        const found = await lookupThing(s, form.url).catch(() => undefined);
        const own = found?.owner.kind === 'user' && found.owner.userId === principal.userId;
        if (found && (!found.hidden || own)) existing = found;
        // Someone else's hidden thing is not shown, not even by its id.
        else error = 'Invalid url: already registered';
      }
      return render(request, reply, form, { error, existing }, 400);
    }
    return redirectWithFlash(reply, `/thing/${id}`, 'thing-created', ctx.secure);
  });

  /** The thing of an edit path when the visitor owns it. @throws NotFoundError, ForbiddenError */
  async function ownedThing(request: FastifyRequest<{ Params: { id: string } }>): Promise<ThingRecord> {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    await getThing(s, id);
    return ownThing(s, sessionPrincipal(request.webSession!), id, 'edit');
  }

  /**
   * GET /thing/:id/edit — the owner's form with the thing's title, description, category, language,
   * tags and hidden (the url is shown, not editable: the API keeps a thing's url), and links to the
   * thing page's hide and delete forms. Not the owner → 403 page; unknown thing → 404 page; not
   * logged in → the log-in page, then back.
   */
  app.get<{ Params: { id: string } }>('/thing/:id/edit', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const thing = await ownedThing(request);
    return render(request, reply, formOfThing(thing), { thing });
  });

  /**
   * POST /thing/:id/edit — fields title, description, category, language, tags, hidden
   * (checkbox: absent means shown), _csrf; validated by the parsers of `PATCH /things/:id` and saved
   * by updateThing (every field is sent, so an emptied field is cleared; no url: it cannot change).
   * Success: 303 to `/thing/:id` with the one-time notice `thing-saved`. Invalid input: 400, the
   * form as sent with the API's message, nothing written. Not the owner → 403 page; unknown
   * thing → 404 page; not logged in → the log-in page, then back to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/edit', async (request, reply) => {
    if (!request.webSession) {
      const id = pageId(request.params.id);
      return toLogin(request, reply, id === undefined ? '/' : `/thing/${id}/edit`);
    }
    const thing = await ownedThing(request);
    const form = { ...sentForm(request), url: thing.url };
    try {
      const changes = thingChanges(undefined, {
        title: parseTitle(form.title),
        description: parseDescription(form.description),
        category: parseCategory(form.category),
        language: parseLanguage(form.language),
        tags: parseTags(form.tags),
        hidden: parseHidden(hiddenValue(form)),
      });
      await updateThing(s, sessionPrincipal(request.webSession), thing.id, changes);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'validation') throw err;
      return render(request, reply, form, { thing, error: err.message }, 400);
    }
    return redirectWithFlash(reply, `/thing/${thing.id}`, 'thing-saved', ctx.secure);
  });
}
