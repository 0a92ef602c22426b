// What the framework refuses before any route runs still answers in the API's error format
// ({ ok:false, error }) and never quotes the request back (issue 13 §4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { ADMIN, createTestApp, type TestApp } from '../helpers/test-env.js';

const CANARY = 'CANARYzq81';

describe('framework errors in the API vocabulary, never echoing input', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t?.close());

  it('answers an over-long path parameter 414 uri_too_long without the path', async () => {
    for (const url of [`/r/v1.${CANARY}${'a'.repeat(9000)}`, `/v1/decisions/dec_${CANARY}${'b'.repeat(9000)}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(414);
      expect(res.json()).toEqual({ ok: false, error: 'uri_too_long' });
      expect(res.body).not.toContain(CANARY);
    }
  });

  it('answers a malformed percent-escape 400 without the path', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/decisions/${CANARY}%E0%A4%A` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(res.body).not.toContain(CANARY);
  });

  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (d) => (data += d.toString('utf8')));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      socket.write(request);
    });

  it('answers a request Node cannot parse in the API format', async () => {
    const res = await raw(`GET /${CANARY} HTTP/1.1\r\nHost: x\r\nContent-Length: zz${CANARY}\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toContain('{"ok":false,"error":"invalid_request"}');
    expect(res).not.toContain(CANARY);
  });

  it('answers oversized headers 431 in the API format', async () => {
    const res = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${CANARY}${'h'.repeat(20_000)}\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 431 /);
    expect(res).toContain('{"ok":false,"error":"headers_too_large"}');
    expect(res).not.toContain(CANARY);
  });

  it('answers 405 with Allow exactly where the router knows the path, under any spelling', async () => {
    // The router decodes some escapes and not others; the 405 must agree with routing itself.
    const spellings = [
      '/v1/offers/decide',
      '/v1/%6Ffers/decide',
      '/v1/offers/%64ecide',
      '/v%31/offers/decide',
      '/v1/offers/decide/',
      '/v1/offers/decide?x=1',
      '/V1/offers/decide',
    ];
    let routed = 0;
    for (const url of spellings) {
      const post = await t.app.inject({ method: 'POST', url, payload: {} });
      const get = await t.app.inject({ method: 'GET', url });
      if (post.statusCode === 404) {
        expect(get.statusCode, url).toBe(404);
        continue;
      }
      routed++;
      expect(get.statusCode, url).toBe(405);
      expect(get.headers.allow, url).toBe('POST');
      expect(get.json()).toEqual({ ok: false, error: 'method_not_allowed' });
    }
    expect(routed).toBeGreaterThanOrEqual(4);
    // Decided on request, before Fastify looks at the body: a QUERY with no content type (which
    // Fastify refuses once routed) still gets the 405, for public and, with the key, admin paths.
    for (const [url, headers, allow] of [
      ['/v1/offers/decide', {}, 'POST'],
      ['/admin/reports', ADMIN, 'GET, HEAD'],
    ] as const) {
      const query = await t.app.inject({ method: 'QUERY' as 'GET', url, headers });
      expect(query.statusCode, url).toBe(405);
      expect(query.headers.allow, url).toBe(allow);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(missing.statusCode).toBe(404);
  });
});
