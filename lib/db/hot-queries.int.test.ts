/** The hot reads by id on the embedded engine (PGlite), on a table that grew with stale statistics (issue 44). */
import { describe } from 'vitest';
import { staleStatisticsSuite } from '@/test/helpers/stale-plans';

describe('reads by id on PGlite, statistics stale', () => staleStatisticsSuite('embedded'));
