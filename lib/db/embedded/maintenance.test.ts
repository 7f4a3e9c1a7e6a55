/** The thresholds of the embedded database's maintenance (lib/db/embedded/maintenance.ts): PostgreSQL's autovacuum defaults. */
import { describe, expect, it } from 'vitest';
import { planMaintenance, statementOf, type TableState } from './maintenance';

const table = (s: Partial<TableState>): TableState => ({
  table: 't',
  reltuples: 1000,
  bytes: 8192,
  liveRows: 1000,
  deadRows: 0,
  changedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
  lastAnalyze: new Date(),
  lastVacuum: new Date(),
  ...s,
});

describe('planMaintenance', () => {
  it('analyses once the rows changed since the last analysis exceed 50 + 10 % of the table', () => {
    expect(planMaintenance([table({ changedSinceAnalyze: 150 })])).toEqual([]);
    expect(planMaintenance([table({ changedSinceAnalyze: 151 })])).toEqual([
      { table: 't', action: 'analyze', reasons: ['151 rows changed since its last analysis (threshold 150)'] },
    ]);
  });

  it('counts a table never analysed (reltuples -1) as empty', () => {
    expect(planMaintenance([table({ reltuples: -1, changedSinceAnalyze: 51, lastAnalyze: null })])).toEqual([
      { table: 't', action: 'analyze', reasons: ['51 rows changed since its last analysis (threshold 50)'] },
    ]);
  });

  it('vacuums once the dead rows exceed 50 + 20 %, or the rows inserted since the last vacuum 1,000 + 20 %', () => {
    expect(planMaintenance([table({ deadRows: 250, insertedSinceVacuum: 1200 })])).toEqual([]);
    expect(planMaintenance([table({ deadRows: 251 })])).toEqual([
      { table: 't', action: 'vacuum', reasons: ['251 dead rows (threshold 250)'] },
    ]);
    expect(planMaintenance([table({ insertedSinceVacuum: 1201 })])).toEqual([
      { table: 't', action: 'vacuum', reasons: ['1,201 rows inserted since its last vacuum (threshold 1,200)'] },
    ]);
    expect(planMaintenance([table({ deadRows: 251, changedSinceAnalyze: 151 })])[0].action).toBe('vacuum+analyze');
  });

  it('at start-up only, analyses a table with data that was never analysed, whatever changed', () => {
    const never = table({ lastAnalyze: null, reltuples: -1, changedSinceAnalyze: 0 });
    expect(planMaintenance([never])).toEqual([]);
    expect(planMaintenance([never], { startup: true })).toEqual([
      { table: 't', action: 'analyze', reasons: ['holds data and was never analysed'] },
    ]);
    expect(planMaintenance([{ ...never, bytes: 0 }], { startup: true })).toEqual([]);
  });

  it('quotes the table name in its statement', () => {
    expect(statementOf({ table: 'rate_limits', action: 'vacuum+analyze', reasons: [] })).toBe(
      'VACUUM (ANALYZE) "rate_limits"',
    );
    expect(statementOf({ table: 'a"b', action: 'analyze', reasons: [] })).toBe('ANALYZE "a""b"');
  });
});
