// Writes docs/reason-codes.md from src/reference/reason-codes.ts.
import { writeFileSync } from 'node:fs';
import { renderReferenceMarkdown } from '../src/reference/reason-codes.js';

writeFileSync(new URL('../docs/reason-codes.md', import.meta.url), renderReferenceMarkdown());
