/**
 * The baseline of `npm run bench`: a Fastify hello-world, no logging, answering `{"hello":"world"}`
 * on every path of GET /. Started by bench/run.ts as a child process:
 *   node --import tsx bench/hello.ts        (env PORT, HOST; default 127.0.0.1:3001)
 * Stops on SIGTERM/SIGINT.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.get('/healthz', async () => ({ status: 'ok' }));

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';
await app.listen({ port, host });
process.stdout.write(`hello listening on http://${host}:${port}\n`);

const stop = () => {
  void app.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
