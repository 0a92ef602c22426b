// GET /dashboard: the operator's reporting page. Static files with no data in them: the page
// asks for the admin key and reads /admin/reports with it (src/reporting/), so serving the
// shell itself needs no key. Files are read once at start; the build copies them to dist/.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { feature } from '../http/feature.js';

const ASSETS = {
  'dashboard.html': 'text/html; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
} as const;

// Same-origin scripts and styles only; style attributes carry the chart bar widths.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

async function dashboard(app: FastifyInstance) {
  const files = Object.fromEntries(Object.keys(ASSETS).map((name) => [name, readFileSync(new URL(name, import.meta.url))])) as Record<
    keyof typeof ASSETS,
    Buffer
  >;

  const serve = (name: keyof typeof ASSETS) => async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .header('content-type', ASSETS[name])
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .send(files[name]);

  const schema = (summary: string) => ({ tags: ['dashboard'], summary, hide: false });
  const page = {
    ...schema('Operator reporting dashboard (HTML shell; data needs the admin key)'),
    response: {
      200: {
        description: 'The page; it asks for the admin key and reads GET /admin/reports.',
        content: {
          'text/html': {
            schema: { type: 'string', description: 'The HTML shell, with no data in it.' },
            examples: { page: { summary: 'The page · 대시보드 페이지', value: '<!doctype html><html lang="en">…</html>' } },
          },
        },
      },
    },
  };
  app.get('/dashboard', { schema: page }, serve('dashboard.html'));
  app.get('/dashboard/dashboard.js', { schema: { ...schema('Dashboard script'), hide: true } }, serve('dashboard.js'));
  app.get('/dashboard/dashboard.css', { schema: { ...schema('Dashboard styles'), hide: true } }, serve('dashboard.css'));
}

export const dashboardRoutes = feature(dashboard, { name: 'dashboard', needs: [] });
