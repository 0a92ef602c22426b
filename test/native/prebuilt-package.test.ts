// The prebuilt matching core (README, "Prebuilt matching core"): `npm run package:native` packs
// this platform's addon in napi-rs' standard layout with the hash of the sources it was built
// from; an install that holds that package runs on it without a Rust toolchain, and builds from
// source (here: fails for want of one) as soon as the sources differ.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativePlatform, nativeSourceHash } from '../../scripts/native-source.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const platform = nativePlatform();
const packageName = `sidenote-${platform}`;

describe('prebuilt matching core package', () => {
  let work: string;
  let tarball: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'sidenote-prebuilt-'));
    const out = execFileSync(process.execPath, [path.join(ROOT, 'scripts/package-native.mjs'), '--no-build', '--out', path.join(work, 'packed')], {
      encoding: 'utf8',
    });
    tarball = out.trim().split('\n').at(-1)!;
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("packs this platform's addon in the standard layout, with the hash of its sources", () => {
    expect(path.basename(tarball)).toBe(`${packageName}-0.1.0.tgz`);
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual(['package/README.md', 'package/package.json', `package/sidenote.${platform}.node`]);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    expect(manifest).toMatchObject({
      name: packageName,
      version: '0.1.0',
      main: `sidenote.${platform}.node`,
      sidenote: { sourceHash: nativeSourceHash(ROOT) },
    });
    // The committed layout holds neither the binary nor a hash.
    expect(readdirSync(path.join(ROOT, 'npm', platform)).sort()).toEqual(['README.md', 'package.json']);
  });

  it('is what an install runs on when it holds it, without a Rust toolchain, and not once the sources differ', () => {
    // An install of this checkout that got the platform package and built nothing: no addon in
    // native/, no dev dependencies, no cargo on the PATH.
    const app = path.join(work, 'app');
    mkdirSync(path.join(app, 'native'), { recursive: true });
    for (const f of [
      'package.json',
      'Cargo.toml',
      'Cargo.lock',
      'native/index.js',
      'native/index.d.ts',
      'scripts/build-native.mjs',
      'scripts/native-source.mjs',
    ])
      cpSync(path.join(ROOT, f), path.join(app, f));
    cpSync(path.join(ROOT, 'crates'), path.join(app, 'crates'), { recursive: true, filter: (src) => !src.split(path.sep).includes('target') });
    const installed = path.join(app, 'node_modules', packageName);
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    const env = { ...process.env, PATH: path.dirname(process.execPath) };
    const build = () => spawnSync(process.execPath, [path.join(app, 'scripts/build-native.mjs')], { env, encoding: 'utf8' });

    const used = build();
    expect(used.status, used.stderr).toBe(0);
    expect(used.stdout).toContain(`using the prebuilt matching core ${packageName}@0.1.0`);
    const loaded = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(path.join(app, 'native/index.js'))}); console.log(m.__napiBindingTarget, typeof m.LiveOfferIndex);`,
      ],
      { env, encoding: 'utf8' },
    );
    expect(loaded.stdout.trim(), loaded.stderr).toBe('native function');
    expect(readdirSync(path.join(app, 'native')).filter((f) => f.endsWith('.node'))).toEqual([]);

    // One changed source: the package is not those sources' build, so the install builds from
    // source, and says what it needs for that.
    appendFileSync(path.join(app, 'crates/sidenote-core/src/lib.rs'), '\n// changed\n');
    const rebuilt = build();
    expect(rebuilt.status).toBe(1);
    expect(rebuilt.stdout).toContain(`${packageName} was built from other sources: building from source`);
    expect(rebuilt.stderr).toContain('npm ci && npm run build');
    expect(readFileSync(path.join(app, 'crates/sidenote-core/src/lib.rs'), 'utf8')).toContain('// changed');
  });
});
