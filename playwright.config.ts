/**
 * End-to-end tests of the hosted capture page in Debian's Chromium (apt), with a fake camera fed by Y4M
 * files made from real face photos (e2e/global-setup.ts). The production build runs on an embedded database.
 */
import { defineConfig } from '@playwright/test';
import { BROWSER_FONTCONFIG_FILE, chromiumPath } from './test/setup/provision.mjs';

/**
 * Chromium renders with the provisioned browser fonts only (test/setup/provision.mjs): the capture page's
 * Arabic, Hebrew, Devanagari and Japanese are drawn, measured (overflow) and screenshotted with the fonts a phone
 * has, on any machine.
 */
export const CHROMIUM_ENV = { ...process.env, FONTCONFIG_FILE: BROWSER_FONTCONFIG_FILE };

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'e2e',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS, env: CHROMIUM_ENV },
    trace: 'off',
  },
});
