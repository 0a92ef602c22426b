// Where the reports read (`/admin/reports`, the dashboard): the primary by default, or a read
// replica named by REPORTING_DATABASE_URL, so report queries over days of rollups take no CPU or
// buffer cache from the database that decides write to. The service never migrates the replica
// (its schema arrives by replication) and never writes to it: every session it opens there is
// read only, so a write that slipped in would fail rather than land.
import { openDatabase, type Database } from '../db/database.js';

export async function openReportingDatabase(url: string): Promise<Database> {
  const readOnly = new URL(url);
  readOnly.searchParams.set('options', '-c default_transaction_read_only=on');
  // A few connections: reports are occasional, one request runs eight queries at once.
  return openDatabase({ databaseUrl: readOnly.toString(), dataDir: 'memory', poolSize: 4 });
}
