// tsc compiles src/ to dist/ but does not copy the SQL migrations the compiled code reads.
import { cpSync } from 'node:fs';
cpSync(new URL('../src/db/migrations', import.meta.url), new URL('../dist/db/migrations', import.meta.url), { recursive: true });
