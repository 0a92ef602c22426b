// tsc compiles src/ to dist/ but does not copy the files the compiled code reads at run time:
// the SQL migrations and the dashboard's static page.
import { cpSync } from 'node:fs';
cpSync(new URL('../src/db/migrations', import.meta.url), new URL('../dist/db/migrations', import.meta.url), { recursive: true });
for (const file of ['dashboard.html', 'dashboard.js', 'dashboard.css']) {
  cpSync(new URL(`../src/dashboard/${file}`, import.meta.url), new URL(`../dist/dashboard/${file}`, import.meta.url));
}
