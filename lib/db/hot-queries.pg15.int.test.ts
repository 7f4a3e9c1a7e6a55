/** The hot reads by id on PostgreSQL 15, on a table that grew with stale statistics (issue 44). */
import { describe } from 'vitest';
import { staleStatisticsSuite } from '@/test/helpers/stale-plans';

describe('reads by id on PostgreSQL 15, statistics stale', () => staleStatisticsSuite('pg15'));
