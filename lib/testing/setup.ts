import { inject } from 'vitest';
import { resetEnvCache } from '@/lib/env';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.ENCRYPTION_KEY = inject('encryptionKey');
process.env.BASE_URL = 'http://verify.test';
process.env.LOG_LEVEL = 'silent';
resetEnvCache();
