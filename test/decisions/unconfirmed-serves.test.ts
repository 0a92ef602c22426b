// Served decisions between their write and their confirmation (migrations 011 and 018): the
// insert notes a served row as unconfirmed, the confirmation clears the note without writing the
// decision row again, and the sweep corrects to TIMEOUT only the rows still noted past the grace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRepository } from '../../src/apps/app-repository.js';
import { HISTORY_TABLES, HistoryMaintenance, type HistoryTable } from '../../src/db/history-partitions.js';
import { DecisionRepository } from '../../src/decisions/decision-repository.js';
import { UnconfirmedServes } from '../../src/decisions/unconfirmed-serves.js';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '../helpers/test-env.js';
import { decisionAt, noActivity } from '../../testkit/decision-records.js';

const keepAll = Object.fromEntries(Object.keys(HISTORY_TABLES).map((t) => [t, 0])) as Record<HistoryTable, number>;
const served = { snapshotId: 'snap.unconfirmed-test', campaignId: 'cmp.unconfirmed-test', spend: 1_500 };

describe(`unconfirmed serves (${usingRealPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let t: TestDatabase;
  let decisions: DecisionRepository;
  let appId: string;
  const now = Date.now();
  const row = async (id: string) =>
    (
      await t.db.query<{ version: string; serve: boolean; spend: string }>(
        'SELECT xmin::text AS version, serve, spend_micros::text AS spend FROM decisions WHERE id = $1',
        [id],
      )
    ).rows[0];
  const noted = async () => (await t.db.query<{ id: string }>('SELECT id FROM unconfirmed_serves ORDER BY id')).rows.map((r) => r.id);

  beforeAll(async () => {
    t = await createTestDatabase();
    await new HistoryMaintenance(t.db, { retentionDays: keepAll, daysAhead: 1 }, { now: () => now }).run({ wait: true });
    appId = (await new AppRepository(t.db).createApp('Unconfirmed')).app_id;
    decisions = new DecisionRepository(t.db, noActivity);
  });
  afterAll(() => t?.drop());

  it('notes a served row until it is confirmed; the confirmation does not write the decision row again', async () => {
    const serve = decisionAt(appId, now - 1_000, served);
    const noFill = decisionAt(appId, now - 1_000);
    await decisions.insert([serve, noFill]);
    expect(await noted()).toEqual([serve.id]);
    const written = await row(serve.id);

    await decisions.confirmServes([serve.id]);
    expect(await noted()).toEqual([]);
    // The same version of the row: no new tuple, no new index entries (what the flag cost).
    expect(await row(serve.id)).toEqual(written);
    // Confirmed, it is not swept, however late.
    const sweep = new UnconfirmedServes(decisions, { graceMs: 0, now: () => now + 60_000 });
    expect(await sweep.sweep()).toBe(0);
    expect(await row(serve.id)).toEqual(written);
  });

  it('sweeps a served row never confirmed into the TIMEOUT row, spend off, and clears a note whose row is gone', async () => {
    const lost = decisionAt(appId, now - 2_000, served);
    const fresh = decisionAt(appId, now - 10, served);
    await decisions.insert([lost, fresh]);
    // A note left by a day whose partition was dropped: nothing to correct, only to clear.
    const orphan = decisionAt(appId, now - 3_000, served);
    await t.db.query('INSERT INTO unconfirmed_serves (id, created_at) VALUES ($1, $2)', [orphan.id, orphan.createdAt.toISOString()]);

    const sweep = new UnconfirmedServes(decisions, { graceMs: 1_000, now: () => now });
    expect(await sweep.sweep()).toBe(1);
    expect(await row(lost.id)).toMatchObject({ serve: false, spend: '0' });
    // Within the grace: still served, still noted.
    expect(await row(fresh.id)).toMatchObject({ serve: true, spend: String(served.spend) });
    expect(await noted()).toEqual([fresh.id]);
  });

  it("an instance's own TIMEOUT correction clears the note, so the sweep never corrects that row twice", async () => {
    const timedOut = decisionAt(appId, now - 5_000, served);
    await decisions.insert([timedOut]);
    expect(await decisions.correctTimedOut([{ id: timedOut.id, latencyUs: 250_000 }])).toBe(1);
    expect(await noted()).not.toContain(timedOut.id);
    const corrected = await row(timedOut.id);
    const sweep = new UnconfirmedServes(decisions, { graceMs: 0, now: () => now + 60_000 });
    await sweep.sweep();
    expect(await row(timedOut.id)).toEqual(corrected);
  });
});
