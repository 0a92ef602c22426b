// A catalog import killed mid-way leaves its upload copy (up to 1 GiB) and its spool in the
// temporary directory; every start removes those whose process is gone
// (src/catalog/import-scratch.ts), and nothing of a live process' imports, nor anything else.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScratchDir, sweepAbandonedScratch } from '../../src/catalog/import-scratch.js';
import { createTestApp } from '../helpers/test-env.js';

/** A pid that belonged to a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('import scratch directories', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sidenote-scratch-test-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("removes a dead process' uploads and spools, an old pid-less one, and nothing else", async () => {
    const make = (name: string, ageMs = 0) => {
      mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, name, 'upload.json'), '{"offers": []}');
      const at = (Date.now() - ageMs) / 1000;
      utimesSync(path.join(dir, name), at, at);
    };
    const dead = deadPid();
    make(`sidenote-upload-${dead}-a1b2c3`);
    make(`sidenote-import-${dead}-d4e5f6`);
    make('sidenote-upload-Ab3dE9', 3 * 24 * 3600_000); // an older version's, three days old
    make('sidenote-upload-Zz9yX8'); // an older version's, fresh: maybe running
    make(`sidenote-upload-${process.ppid}-g7h8i9`); // a live process' (the test runner's parent)
    make('unrelated-dir');
    const mine = await makeScratchDir('upload', dir);
    expect(path.basename(mine)).toMatch(new RegExp(`^sidenote-upload-${process.pid}-`));

    const removed = await sweepAbandonedScratch(dir);
    expect(removed.sort()).toEqual([`sidenote-import-${dead}-d4e5f6`, `sidenote-upload-${dead}-a1b2c3`, 'sidenote-upload-Ab3dE9'].sort());
    expect((await readdir(dir)).sort()).toEqual(
      ['sidenote-upload-Zz9yX8', `sidenote-upload-${process.ppid}-g7h8i9`, path.basename(mine), 'unrelated-dir'].sort(),
    );
    expect(existsSync(mine)).toBe(true);
  });

  it('a starting instance sweeps the temporary directory', async () => {
    const left = path.join(tmpdir(), `sidenote-upload-${deadPid()}-crash1`);
    mkdirSync(left);
    writeFileSync(path.join(left, 'upload.json'), '{}');
    const t = await createTestApp({ loadDemoCatalog: false });
    try {
      expect(existsSync(left)).toBe(false);
    } finally {
      await t.close();
      await rm(left, { recursive: true, force: true });
    }
  });
});
