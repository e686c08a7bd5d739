/**
 * Reference data (api-v2.md "Category", "Language", "Reference data and limits"), on every engine.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildUser } from '../helpers/factories.ts';

const LANGUAGES_FILE: Array<{ id: string; text: string }> = JSON.parse(
  readFileSync(new URL('../../src/domain/languages.json', import.meta.url), 'utf8'),
);

const CATEGORIES = [
  { id: 'text', name: 'Text' },
  { id: 'images', name: 'Images' },
  { id: 'video', name: 'Video' },
  { id: 'audio', name: 'Audio' },
  { id: 'software', name: 'Software' },
  { id: 'people', name: 'People' },
  { id: 'rest', name: 'Other' },
];

describe.each(ENGINES)('reference data on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  describe('GET /categories', () => {
    it('exactly the seven {id, name} of the spec, in its order', async () => {
      const res = await t.app.inject({ url: `${API}/categories` });
      expect(res.statusCode).toBe(200);
      const body = json(res);
      expect(body).toEqual(CATEGORIES);
      for (const c of body) expect(Object.keys(c).sort()).toEqual(['id', 'name']);
    });

    it('is the same with a token and with a trailing slash', async () => {
      const { token } = await buildUser(t.services);
      const withToken = await t.app.inject({ url: `${API}/categories`, headers: bearer(token) });
      expect(withToken.statusCode).toBe(200);
      expect(json(withToken)).toEqual(CATEGORIES);
      const slash = await t.app.inject({ url: `${API}/categories/` });
      expect(slash.statusCode).toBe(200);
      expect(json(slash)).toEqual(CATEGORIES);
    });
  });

  describe('GET /languages', () => {
    it('44 {id, text} entries, English (en_GB) first, exactly the languages.json list', async () => {
      const res = await t.app.inject({ url: `${API}/languages` });
      expect(res.statusCode).toBe(200);
      const body: Array<{ id: string; text: string }> = json(res);
      expect(body).toHaveLength(44);
      expect(body[0]).toEqual({ id: 'en_GB', text: 'English' });
      expect(body).toEqual(LANGUAGES_FILE);
      for (const l of body) {
        expect(Object.keys(l).sort()).toEqual(['id', 'text']);
        expect(l.id).toMatch(/^[a-z]{2}_[A-Z]{2}$/);
        expect(typeof l.text).toBe('string');
        expect(l.text.length).toBeGreaterThan(0);
      }
      expect(new Set(body.map((l) => l.id)).size).toBe(44);
    });

    it('after English, sorted by name', async () => {
      const body: Array<{ id: string; text: string }> = json(await t.app.inject({ url: `${API}/languages/` }));
      const rest = body.slice(1).map((l) => l.text);
      expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b, 'en')));
    });
  });
});
