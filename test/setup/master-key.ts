/**
 * One master key for a test run (ADR 026): the test worker's shared store and every `ads` process a test
 * starts on the same PostgreSQL database must unwrap the same keys. Tests of the key file itself pass
 * their own environment without it.
 */
process.env.ADS_MASTER_KEY ??= 'dGVzdC1tYXN0ZXIta2V5LW9mLXRoZS10ZXN0LXJ1bi0';
