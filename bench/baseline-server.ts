// The bare Fastify baseline measured in the same run as Sidenote: same Node, same machine, no
// work beyond what the framework itself does. GET a small JSON, POST that parses a ~1 KB body,
// and a bare 302.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/json', async () => ({ ok: true, hello: 'world' }));
app.post('/echo', async (request) => ({ ok: true, keys: Object.keys(request.body as object).length }));
app.get('/redirect', async (_request, reply) => reply.redirect('https://www.example.com/landing?utm_source=bench', 302));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
