// The data directory is made private by walking it, while other processes may be creating and
// removing files there (a CLI command's temporary lock file beside a running server, PGlite's
// WAL segments). An entry that vanishes between the directory listing and its lstat is not an
// error: a CLI command beside a running server once crashed on "ENOENT … lstat
// sidenote.lock.<token>.tmp". Here a child process churns temporary files while the walk runs
// a thousand times; the walk must never throw.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDirPrivate } from '../../src/db/private-dir.js';

describe('making the data directory private', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sn-private-race-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is not thrown off by files that vanish while it walks', async () => {
    for (let i = 0; i < 50; i++) writeFileSync(path.join(dir, `settled-${i}`), 'x');
    // Creates and removes files as fast as it can, until killed.
    const churn = spawn(
      process.execPath,
      [
        '-e',
        `const fs=require('fs'),p=require('path');for(let i=0;;i++){const f=p.join(${JSON.stringify(dir)},'sidenote.lock.t'+(i%64)+'.tmp');try{fs.writeFileSync(f,'x');fs.unlinkSync(f)}catch{}}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      // The churn is running once one of its files has been seen (however slow its start).
      while (!readdirSync(dir).some((name) => name.endsWith('.tmp'))) await new Promise((r) => setTimeout(r, 5));
      const failures: string[] = [];
      for (let walk = 1; walk <= 1000; walk++) {
        try {
          makeDataDirPrivate(dir);
        } catch (err) {
          failures.push((err as Error).message);
        }
        if (walk % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(failures.slice(0, 3)).toEqual([]);
    } finally {
      churn.kill('SIGKILL');
    }
  });
});
