/**
 * The client's committed types (packages/client/src/openapi.ts) are what the server's live
 * OpenAPI document gives: the document is read from the app listening on a loopback port
 * (`GET /openapi.json` over HTTP) and turned into TypeScript exactly as `npm run client:types`
 * does. The test fails, naming that command, when a route schema changed and the types were not
 * regenerated.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, GENERATION_PUBLIC_URL, clientTypes } from '../../scripts/client-types.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';

/** The first line where `a` and `b` differ, for the failure message. */
function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return `line ${i + 1}:\n  committed: ${la[i] ?? '(end)'}\n  generated: ${lb[i] ?? '(end)'}`;
  }
  return '(none)';
}

// The document does not depend on the engine: one is enough.
describe('the client types and the live /openapi.json', () => {
  let server: ListeningApp;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    server = await listenTestApp('sqlite', { PUBLIC_URL: GENERATION_PUBLIC_URL });
    const res = await fetch(`${server.site}/openapi.json`);
    expect(res.status).toBe(200);
    document = (await res.json()) as Record<string, unknown>;
  });
  afterAll(async () => server?.close());

  it('packages/client/src/openapi.ts is what the served document generates', async () => {
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    const generated = await clientTypes(document);
    expect(
      committed === generated,
      `packages/client/src/openapi.ts differs from the server's /openapi.json: run \`npm run client:types\` and commit the file (first difference at ${firstDifference(committed, generated)})`,
    ).toBe(true);
  });

  it('a change of a representation changes the generated types (so the comparison above can fail)', async () => {
    const changed = structuredClone(document) as {
      components: { schemas: { Thing: { properties: Record<string, unknown>; required: string[] } } };
    };
    changed.components.schemas.Thing.properties.tip_amount_cents = { type: 'integer' };
    changed.components.schemas.Thing.required.push('tip_amount_cents');
    const generated = await clientTypes(changed as unknown as Record<string, unknown>);
    expect(generated).not.toBe(readFileSync(CLIENT_TYPES_FILE, 'utf8'));
    expect(generated).toMatch(/\btip_amount_cents: number;/);
  });
});
