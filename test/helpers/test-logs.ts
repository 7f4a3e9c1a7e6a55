/**
 * Where a test run's logs go, so that they can be searched afterwards for what must never be logged
 * (`npm run test:logs`, test/check-test-logs.ts): each vitest worker's lines (at debug level) and the output
 * of every server the tests start (the production launcher, the e2e server). Cleared when vitest starts.
 */
import fs from 'node:fs';
import path from 'node:path';

export const TEST_LOG_DIR = path.resolve(import.meta.dirname, '../../.cache/test-logs');

export function testLogFile(name: string): string {
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
  return path.join(TEST_LOG_DIR, name);
}

export function clearTestLogs() {
  fs.rmSync(TEST_LOG_DIR, { recursive: true, force: true });
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
}
