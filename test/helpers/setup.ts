import { inject } from 'vitest';
import pino from 'pino';
import { resetEnvCache } from '@/lib/core/env';
import { resetLogger } from '@/lib/core/log';
import { testLogFile } from './test-logs';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.ENCRYPTION_KEY = inject('encryptionKey');
process.env.BASE_URL = 'http://verify.test';
// Everything the code logs, at every level, into a file of this run: npm run test:logs searches it for what
// must never be logged (faces, tokens, secrets, names, dates of birth).
process.env.LOG_LEVEL = 'debug';
resetEnvCache();
resetLogger(pino.destination({ dest: testLogFile(`vitest-${process.pid}.log`), sync: true, append: true }));
