import Fastify from 'fastify';

/** The baseline for bench/http.ts: Fastify answering a constant JSON body, no hooks, no logging. */
const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`bare fastify on ${url}\n`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
