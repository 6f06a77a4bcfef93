/**
 * On PostgreSQL, each test worker gets a database of its own, made fresh for the run.
 *
 * Organizations isolate tests from one another, but some work is global by design: the expiry sweep
 * updates every organization's rows, and a test that moves its clock 91 days ahead and sweeps would
 * otherwise expire the audiences of a test running in the other worker. The worker's URL replaces
 * DATABASE_URL, so processes the tests start (the CLI, `ads serve`) use the same database.
 *
 * Runs before every test file; workers are reused across files (isolate: false), so it acts once.
 */
import pg from 'pg';

const base = process.env.DATABASE_URL;
if (base && !process.env.ADS_TEST_WORKER_DATABASE) {
  const url = new URL(base);
  const name = `${url.pathname.slice(1) || 'postgres'}_w${process.env.VITEST_POOL_ID ?? '0'}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  process.env.ADS_TEST_WORKER_DATABASE = name;
}
