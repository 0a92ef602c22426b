// The CLI beside a running embedded server. The PGlite directory belongs to the server process
// (src/db/data-dir-lock.ts), so the CLI's commands go through the server's local admin channel
// (src/admin/local-admin-channel.ts), and an operator's writes survive the server's restart.
// Embedded only: with DATABASE_URL the CLI writes to Postgres directly (test/cli/cli.test.ts).
// Who holds the directory, and what happens when the holder is gone or silent:
// test/cli/cli-embedded-lock.test.ts.
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { embeddedCliHarness } from '../helpers/embedded-cli.js';
import { usingRealPostgres } from '../helpers/test-db.js';
import { miniCatalog } from '../helpers/mini-catalog.js';

describe.skipIf(usingRealPostgres)('CLI beside a running embedded server (PGlite only: skipped with DATABASE_URL, where nothing is locked)', () => {
  const { root, eventually, freshDir, cli, serve, stop, decide, mode } = embeddedCliHarness();

  it('performs app create and key revoke through the server, and both survive a restart', async () => {
    const dir = freshDir();
    let server = await serve(dir);
    const created = await cli(dir, 'app', 'create', 'Through the server', '--json');
    expect(created.code, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout);
    // The server sees the new key at once: it wrote it.
    expect(await decide(server, app.serving_key)).toMatchObject({ status: 200, body: { serve: true } });

    const revoked = await cli(dir, 'key', 'revoke', app.serving_key_id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^key ${app.serving_key_id} revoked at \\d{4}-`));
    expect(
      await eventually(
        () => decide(server, app.serving_key),
        (r) => r.status === 401,
      ),
    ).toMatchObject({ status: 401, body: { error: 'revoked_api_key' } });
    // Only the operator's user may talk to the channel or read its key, or the database.
    expect(mode(path.join(dir, 'admin.sock'))).toBe(0o600);
    expect(mode(path.join(dir, 'admin.key'))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);

    expect(await stop(server)).toBe(0);
    for (const f of ['sidenote.lock', 'admin.sock', 'admin.key']) expect(existsSync(path.join(dir, f)), f).toBe(false);

    server = await serve(dir);
    expect(await decide(server, app.serving_key)).toMatchObject({ status: 401, body: { error: 'revoked_api_key' } });
    expect(await decide(server, app.test_key)).toMatchObject({ status: 200 });
    const listed = await cli(dir, 'app', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const mine = JSON.parse(listed.stdout).find((a: { id: string }) => a.id === app.app_id);
    expect(mine).toMatchObject({ name: 'Through the server' });
    expect(mine.keys.find((k: { id: string }) => k.id === app.serving_key_id).revoked_at).not.toBeNull();
    expect(await stop(server)).toBe(0);
  }, 180_000);

  it('prints the same through the server as directly, for every command, with the same exit codes', async () => {
    const dir = freshDir();
    const catalogFile = path.join(root(), `catalog-${path.basename(path.dirname(dir))}.json`);
    writeFileSync(catalogFile, JSON.stringify(miniCatalog()));
    const server = await serve(dir);
    const through = {
      import: await cli(dir, 'catalog', 'import', catalogFile, '--json'),
      app: await cli(dir, 'app', 'create', 'Same Output', '--json'),
    };
    expect(through.import.code, through.import.stderr).toBe(0);
    expect(JSON.parse(through.import.stdout)).toMatchObject({ changed: true, snapshots_created: 3 });
    const appId = JSON.parse(through.app.stdout).app_id;
    const setup = await cli(dir, 'key', 'create', appId, '--kind', 'setup', '--json');
    expect(JSON.parse(setup.stdout).key).toMatch(/^st_/);
    const rotated = await cli(dir, 'secret', 'rotate', appId);
    expect(rotated.stdout).toMatch(/^new conversion secret csec_\w+ \(shown once\): whsec_/);
    const blocked = await cli(
      dir,
      'app',
      'brand-safety',
      appId,
      '--block-category',
      'travel',
      '--block-category',
      'dating',
      '--block-advertiser',
      'adv.haneul-stay',
    );
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(blocked.stdout).toContain('blocked categories:  dating, travel');
    expect(blocked.stdout).toContain('not in the live catalog (kept; they apply once a catalog has them): dating');
    const viaServer = {
      brandSafety: await cli(dir, 'app', 'brand-safety', appId),
      brandSafetyJson: await cli(dir, 'app', 'brand-safety', appId, '--json'),
      list: await cli(dir, 'app', 'list'),
      listJson: await cli(dir, 'app', 'list', '--json'),
      export: await cli(dir, 'catalog', 'export'),
      unchanged: await cli(dir, 'catalog', 'import', catalogFile),
      unknownKey: await cli(dir, 'key', 'revoke', 'key_nothere'),
      unknownApp: await cli(dir, 'secret', 'rotate', 'app_nothere'),
      malformedId: await cli(dir, 'key', 'create', 'not an id'),
      migrate: await cli(dir, 'migrate'),
    };
    const bad = miniCatalog();
    bad.campaigns![0].bid_micros = -1;
    writeFileSync(catalogFile, JSON.stringify(bad));
    const badViaServer = await cli(dir, 'catalog', 'import', catalogFile);
    expect(await stop(server)).toBe(0);

    const direct = {
      brandSafety: await cli(dir, 'app', 'brand-safety', appId),
      brandSafetyJson: await cli(dir, 'app', 'brand-safety', appId, '--json'),
      list: await cli(dir, 'app', 'list'),
      listJson: await cli(dir, 'app', 'list', '--json'),
      export: await cli(dir, 'catalog', 'export'),
      unknownKey: await cli(dir, 'key', 'revoke', 'key_nothere'),
      unknownApp: await cli(dir, 'secret', 'rotate', 'app_nothere'),
      malformedId: await cli(dir, 'key', 'create', 'not an id'),
    };
    for (const k of Object.keys(direct) as Array<keyof typeof direct>) expect(viaServer[k], k).toEqual(direct[k]);
    expect(direct.unknownKey).toMatchObject({ code: 1, stderr: 'no key key_nothere\n' });
    expect(viaServer.unchanged.stdout).toMatch(/^catalog unchanged/);
    expect(viaServer.migrate.code).toBe(1);
    expect(viaServer.migrate.stderr).toContain('applied its migrations when it started');
    expect(badViaServer.code).toBe(1);
    expect(badViaServer.stderr).toContain('campaigns[0].bid_micros');
    expect(await cli(dir, 'catalog', 'import', catalogFile)).toEqual(badViaServer);
  }, 180_000);

  it('pauses and resumes a campaign through the server, which serves the change at once', async () => {
    const dir = freshDir();
    const server = await serve(dir);
    const app = JSON.parse((await cli(dir, 'app', 'create', 'Campaign Host', '--json')).stdout);
    // The demo catalog's Jeju ocean-view offer, of cmp.haneul-korea-stays, serves this turn.
    const served = await decide(server, app.serving_key);
    expect(served.body).toMatchObject({ serve: true, title: '제주 오션뷰 호텔 최대 30% 할인' });
    const paused = await cli(dir, 'campaign', 'pause', 'cmp.haneul-korea-stays', '--by', 'ops', '--json');
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ effective: { status: 'paused' }, changes: [{ changed_by: 'ops' }] });
    expect((await decide(server, app.serving_key)).body.offer_id).not.toBe(served.body.offer_id);
    expect((await cli(dir, 'campaign', 'resume', 'cmp.haneul-korea-stays')).code).toBe(0);
    expect((await decide(server, app.serving_key)).body.offer_id).toBe(served.body.offer_id);
  }, 120_000);
});
