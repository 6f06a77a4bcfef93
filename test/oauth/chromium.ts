/** Debian's chromium, driven through playwright-core (never a downloaded browser), for the browser tests. */
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from '../setup/debian-packages.ts';

// Without the background-networking flags chromium tries to reach the network, which is closed here.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS });
