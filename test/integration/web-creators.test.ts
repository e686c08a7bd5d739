/**
 * Creators' pages: `/things/new` and `/thing/:id/edit` accept and refuse what `POST /things` and
 * `PATCH /things/:id` do (same messages), need a log-in, and let only the owner edit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { getThing } from '../../src/domain/things.ts';

describe.each(ENGINES)('creators: add and edit things on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const newUrl = () => `https://example.com/${uniqueName('made')}`;

  it('without a session: the forms send to the log-in page, and a post changes nothing', async () => {
    const c = new WebClient(t.app);
    const res = await c.get('/things/new');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login?return_to=%2Fthings%2Fnew');
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner, { title: 'Kept' });
    const edit = await c.get(`/thing/${id}/edit`);
    expect(edit.statusCode).toBe(302);
    expect(edit.headers.location).toBe(`/login?return_to=${encodeURIComponent(`/thing/${id}/edit`)}`);
    const token = await c.csrf('/login');
    const post = await c.post(`/thing/${id}/edit`, { _csrf: token, title: 'Changed' });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe(`/login?return_to=${encodeURIComponent(`/thing/${id}/edit`)}`);
    expect((await getThing(t.services, id)).title).toBe('Kept');
  });

  it('adds a thing with every field, then shows it with a one-time message', async () => {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    const form = html(await c.get('/things/new'));
    expect(form).toContain('<select id="category" name="category">');
    expect(form).toContain('<option value="rest" selected>Other</option>');
    const url = newUrl();
    const res = await c.submit('/things/new', '/things/new', {
      url,
      title: 'My song',
      description: 'Two lines\nof it',
      category: 'audio',
      language: 'de_DE',
      tags: 'music, Live, music,,live',
      hidden: '1',
    });
    expect(res.statusCode).toBe(303);
    const id = Number(/^\/thing\/(\d+)$/.exec(String(res.headers.location))![1]);
    const thing = await getThing(t.services, id);
    expect(thing).toMatchObject({
      url,
      title: 'My song',
      description: 'Two lines\nof it',
      category: 'audio',
      language: 'de_DE',
      tags: ['music', 'Live'],
      hidden: true,
    });
    expect(thing.owner).toMatchObject({ kind: 'user', userId: user.id });
    const page = html(await c.get(`/thing/${id}`));
    expect(page).toContain('Your thing was added.');
    expect(page).toContain(`<a href="/thing/${id}/edit">Edit</a>`);
    expect(html(await c.get(`/thing/${id}`))).not.toContain('Your thing was added.');
  });

  it('defaults as the API: no box ticked, no category → shown, `rest`, `en_GB`, no tags', async () => {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    const res = await c.submit('/things/new', '/things/new', { url: newUrl(), category: '', language: '' });
    expect(res.statusCode).toBe(303);
    const id = Number(String(res.headers.location).split('/').pop());
    expect(await getThing(t.services, id)).toMatchObject({
      title: '',
      category: 'rest',
      language: 'en_GB',
      tags: [],
      hidden: false,
    });
  });

  it.each([
    ['not a URL', { url: 'not a url' }, 'Invalid url'],
    ['an ftp URL', { url: 'ftp://example.com/x' }, 'Invalid url'],
    ['a long title', { title: 'x'.repeat(101) }, 'Invalid title: at most 100 characters'],
    ['a long description', { description: 'x'.repeat(1001) }, 'Invalid description: at most 1000 characters'],
    ['an unknown category', { category: 'nonsense' }, 'Invalid category: see GET /categories'],
    ['an unknown language', { language: 'xx_XX' }, 'Invalid language: see GET /languages'],
    ['a tag with a space', { tags: 'good, bad tag' }, 'Invalid tags: the tag &quot;bad tag&quot; holds white space'],
  ])('refuses %s with the API message, 400, the form as sent, nothing written', async (_name, fields, message) => {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    const sent = { url: newUrl(), title: 'Kept title <b>', ...fields };
    const before = await t.app.inject({ method: 'GET', url: `/rest/v2/users/${user.username}/things` });
    const body = html(await c.submit('/things/new', '/things/new', sent), 400);
    expect(body).toContain('role="alert"');
    expect(body).toContain(message);
    if (!('title' in fields)) expect(body).toContain('value="Kept title &lt;b&gt;"');
    const after = await t.app.inject({ method: 'GET', url: `/rest/v2/users/${user.username}/things` });
    expect(after.body).toBe(before.body);
  });

  it('a URL already registered: the form again with a link to the thing, unless it is hidden from the visitor', async () => {
    const owner = await buildUser(t.services);
    const url = newUrl();
    const shown = await buildThing(t.services, owner, { url, title: 'Registered' });
    const hiddenUrl = newUrl();
    const secret = await buildThing(t.services, owner, { url: hiddenUrl, title: 'Secret', hidden: true });
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    const body = html(await c.submit('/things/new', '/things/new', { url }), 400);
    expect(body).toContain('Invalid url: already registered');
    expect(body).toContain(`<a href="/thing/${shown}">See the existing thing: Registered</a>`);
    const hidden = html(await c.submit('/things/new', '/things/new', { url: hiddenUrl }), 400);
    expect(hidden).toContain('Invalid url: already registered');
    expect(hidden).not.toContain('Secret');
    expect(hidden).not.toContain('See the existing thing');
    expect(hidden).not.toContain(`thing ${secret}`);
    expect(hidden).not.toContain(`/thing/${secret}`);
    // the owner is shown their own hidden thing
    const mine = new WebClient(t.app);
    const ownerWeb = await buildWebUser(t.services);
    const ownUrl = newUrl();
    const own = await buildThing(
      t.services,
      { user: ownerWeb, token: await tokenWith(t.services, ownerWeb.username, 'thing') },
      { url: ownUrl, title: 'Mine', hidden: true },
    );
    await mine.login(ownerWeb.username);
    const again = html(await mine.submit('/things/new', '/things/new', { url: ownUrl }), 400);
    expect(again).toContain(`<a href="/thing/${own}">See the existing thing: Mine</a>`);
  });

  it('the owner edits every field but the url; emptied fields are cleared; the box unticked shows it again', async () => {
    const user = await buildWebUser(t.services);
    const token = await tokenWith(t.services, user.username, 'thing');
    const id = await buildThing(
      t.services,
      { user, token },
      { title: 'Old', description: 'Old text', tags: 'a, b', hidden: true, category: 'video' },
    );
    const c = new WebClient(t.app);
    await c.login(user.username);
    const form = html(await c.get(`/thing/${id}/edit`));
    expect(form).toContain('value="Old"');
    expect(form).toContain('value="a, b"');
    expect(form).toContain('name="hidden" value="1" checked');
    expect(form).toContain('<option value="video" selected>');
    expect(form).not.toContain('name="url"');
    expect(form).toContain(`href="/thing/${id}#owner"`);
    const before = await getThing(t.services, id);
    const res = await c.submit(`/thing/${id}/edit`, `/thing/${id}/edit`, {
      url: 'https://elsewhere.example/',
      title: 'New title',
      description: '',
      category: 'software',
      language: 'fr_FR',
      tags: '',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/thing/${id}`);
    expect(await getThing(t.services, id)).toMatchObject({
      url: before.url,
      title: 'New title',
      description: '',
      category: 'software',
      language: 'fr_FR',
      tags: [],
      hidden: false,
    });
    expect(html(await c.get(`/thing/${id}`))).toContain('Your changes were saved.');
  });

  it('an invalid edit: 400 with the reason and the form as sent; nothing changes', async () => {
    const user = await buildWebUser(t.services);
    const id = await buildThing(
      t.services,
      { user, token: await tokenWith(t.services, user.username, 'thing') },
      { title: 'Stays' },
    );
    const c = new WebClient(t.app);
    await c.login(user.username);
    const body = html(
      await c.submit(`/thing/${id}/edit`, `/thing/${id}/edit`, { title: 'Typed', category: 'nonsense' }),
      400,
    );
    expect(body).toContain('Invalid category: see GET /categories');
    expect(body).toContain('value="Typed"');
    expect((await getThing(t.services, id)).title).toBe('Stays');
  });

  it("another user's thing: 403 page on the form and on the post, nothing changes; unknown thing → 404", async () => {
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner, { title: 'Theirs' });
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    expect(html(await c.get(`/thing/${id}/edit`), 403)).toContain('not yours');
    expect(html(await c.get(`/thing/${id}`))).not.toContain(`/thing/${id}/edit`);
    const token = await c.csrf('/things/new');
    html(await c.post(`/thing/${id}/edit`, { _csrf: token, title: 'Mine now' }), 403);
    expect((await getThing(t.services, id)).title).toBe('Theirs');
    html(await c.get('/thing/999999999/edit'), 404);
    html(await c.get('/thing/abc/edit'), 404);
  });

  it('the profile of the logged-in user links to the form; other profiles do not', async () => {
    const user = await buildWebUser(t.services);
    const other = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    expect(html(await c.get(`/profile/${user.username}`))).toContain('<a href="/things/new">Add a thing</a>');
    expect(html(await c.get(`/profile/${other.username}`))).not.toContain('/things/new');
  });
});
