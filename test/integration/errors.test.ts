/**
 * The error shape and request-level failures (api-v2.md "Errors", DECISIONS.md "Wire format",
 * "Formats and protocol"), on every engine. The 500 case makes the database fail for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';

describe.each(ENGINES)('errors on %s', (engine) => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await buildTestApp(engine);
    user = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const thingRows = async (url: string) =>
    (await t.db.database.db.selectFrom('things').select('id').where('url', '=', url).execute()).length;

  describe('unknown routes', () => {
    it.each([
      ['GET', `${API}/no/such/resource`],
      ['GET', `${API}/thingz`],
      ['POST', `${API}/categories`],
      ['DELETE', `${API}/users/someone`],
      ['GET', '/nothing-here'],
    ])('%s %s → 404 not_found in the error shape', async (method, url) => {
      const res = await t.app.inject({ method: method as 'GET', url });
      expectError(res, 404, 'not_found');
    });
  });

  describe('undecodable paths', () => {
    it.each([[`${API}/users/%FF`], [`${API}/things/%E0%A4%A`]])(
      '%s → 400 invalid_request in the error shape',
      async (url) => {
        expectError(await t.app.inject({ url }), 400, 'invalid_request');
      },
    );
  });

  describe('bearer tokens', () => {
    it('an unknown token → 401 unauthorized, even on a public resource', async () => {
      const res = await t.app.inject({ url: `${API}/user`, headers: bearer('invalid-token-value') });
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expectError(
        await t.app.inject({ url: `${API}/categories`, headers: bearer('invalid-token-value') }),
        401,
        'unauthorized',
      );
    });

    it('a malformed Authorization header → 401 unauthorized', async () => {
      expectError(
        await t.app.inject({ url: `${API}/user`, headers: { authorization: 'Bearer' } }),
        401,
        'unauthorized',
      );
      expectError(
        await t.app.inject({ url: `${API}/user`, headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
        401,
        'unauthorized',
      );
    });

    it('a valid token passes (control)', async () => {
      const res = await t.app.inject({ url: `${API}/user`, headers: bearer(user.token) });
      expect(res.statusCode).toBe(200);
      expect(json(res).username).toBe(user.user.username);
    });
  });

  describe('request bodies', () => {
    const postThings = (payload: string, contentType?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: { ...bearer(user.token), ...(contentType ? { 'content-type': contentType } : {}) },
        payload,
      });

    it('malformed JSON → 400 invalid_request, nothing written', async () => {
      const url = `https://example.com/${uniqueName('badjson')}`;
      expectError(await postThings(`{"url": "${url}"`, 'application/json'), 400, 'invalid_request');
      expectError(await postThings('{url: nope}', 'application/json'), 400, 'invalid_request');
      expectError(await postThings(`{"url": "${url}"`, 'application/json; charset=utf-8'), 400, 'invalid_request');
      expect(await thingRows(url)).toBe(0);
    });

    it('an unsupported content type → 400 invalid_request, nothing written', async () => {
      const url = `https://example.com/${uniqueName('plain')}`;
      expectError(await postThings(`url=${url}`, 'text/plain'), 400, 'invalid_request');
      expectError(await postThings(`<thing><url>${url}</url></thing>`, 'application/xml'), 400, 'invalid_request');
      expect(await thingRows(url)).toBe(0);
    });

    it('an empty body with a JSON content type is {}: POST /things → 400 validation, not invalid_request', async () => {
      const res = await postThings('', 'application/json');
      const body = expectError(res, 400, 'validation');
      expect(body.error_description).toMatch(/url/i);
      expectError(await postThings('   ', 'application/json'), 400, 'validation');
    });

    it('the same body well-formed succeeds (control)', async () => {
      const url = `https://example.com/${uniqueName('good')}`;
      const res = await postThings(JSON.stringify({ url }), 'application/json');
      expect(res.statusCode, res.body).toBe(201);
      expect(await thingRows(url)).toBe(1);
    });
  });

  describe('unexpected failures', () => {
    async function installFailingTrigger() {
      const db = t.db.database.db;
      if (engine === 'sqlite') {
        await sql`CREATE TRIGGER boom BEFORE INSERT ON activities BEGIN SELECT RAISE(ABORT, 'boom'); END`.execute(db);
      } else {
        await sql`CREATE FUNCTION boom_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`.execute(
          db,
        );
        await sql`CREATE TRIGGER boom BEFORE INSERT ON activities FOR EACH ROW EXECUTE FUNCTION boom_fn()`.execute(db);
      }
    }
    async function dropFailingTrigger() {
      const db = t.db.database.db;
      if (engine === 'sqlite') {
        await sql`DROP TRIGGER IF EXISTS boom`.execute(db);
      } else {
        await sql`DROP TRIGGER IF EXISTS boom ON activities`.execute(db);
        await sql`DROP FUNCTION IF EXISTS boom_fn()`.execute(db);
      }
    }

    it("a database failure → 500 server_error without internals, and the request's writes are rolled back", async () => {
      const url = `https://example.com/${uniqueName('boom')}`;
      const thingsBefore = (await t.db.database.db.selectFrom('things').select('id').execute()).length;
      await installFailingTrigger();
      let res: LightMyRequestResponse;
      try {
        res = await t.app.inject({
          method: 'POST',
          url: `${API}/things`,
          headers: bearer(user.token),
          payload: { url, title: 'Boom' },
        });
      } finally {
        await dropFailingTrigger();
      }
      const body = expectError(res, 500, 'server_error');
      for (const leak of [
        /boom/i,
        /insert/i,
        /activities/i,
        /select/i,
        /sql/i,
        /trigger/i,
        /\bat\s+\S+\s*\(/,
        /\.ts\b/,
        /node_modules/,
      ]) {
        expect(res.body).not.toMatch(leak);
      }
      expect(body.error_description).not.toMatch(/error:/i);
      // The thing inserted before the failing activity insert is gone with it.
      expect(await thingRows(url)).toBe(0);
      expect((await t.db.database.db.selectFrom('things').select('id').execute()).length).toBe(thingsBefore);

      // With the trigger gone the same request succeeds: the failure was the database, not the input.
      const again = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(user.token),
        payload: { url, title: 'Boom' },
      });
      expect(again.statusCode, again.body).toBe(201);
      expect(await thingRows(url)).toBe(1);
    });
  });
});
