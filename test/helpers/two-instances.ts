import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config/index.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { testApp, type TestApp } from './app.ts';

/**
 * Two app instances on the shared stores, standing for two API processes on one database: opened
 * before the suite that calls this and closed after it. Read `a` and `b` inside tests.
 */
export function twoInstances(clock: Clock, config: Partial<Config> = {}): { a: TestApp; b: TestApp } {
  const apps = {} as { a: TestApp; b: TestApp };
  beforeAll(async () => {
    apps.a = await testApp({ clock, config });
    apps.b = await testApp({ clock, config });
  });
  afterAll(async () => {
    await apps.a?.app.close();
    await apps.b?.app.close();
  });
  return apps;
}
