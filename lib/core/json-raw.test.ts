import { describe, expect, it } from 'vitest';
import { compactJson, rawMember, RawJson, stringifyJson } from './json-raw';

describe('JSON kept as sent (external_metadata)', () => {
  const body = `{ "external_id" : "u-1",\n  "external_metadata" : { "z": 1, "a": 12345678901234567890, "m": 0.1000000000000000055511,\n "s": "a\\/b \\u00e9 \\" ]}", "n": {"y": [1.0, 2e10, -0E-0], "x": null} } , "flow":"age"}`;

  it('finds the raw text of a top-level member, whatever its spacing', () => {
    expect(rawMember(body, 'external_metadata')).toBe(
      `{ "z": 1, "a": 12345678901234567890, "m": 0.1000000000000000055511,\n "s": "a\\/b \\u00e9 \\" ]}", "n": {"y": [1.0, 2e10, -0E-0], "x": null} }`,
    );
    expect(rawMember(body, 'external_id')).toBe('"u-1"');
    expect(rawMember(body, 'flow')).toBe('"age"');
    expect(rawMember(body, 'mode')).toBeUndefined();
    expect(rawMember('[1]', 'a')).toBeUndefined();
  });

  it('a key given twice: the last, as JSON.parse takes it; an escaped key name is the same key', () => {
    expect(rawMember('{"a":{"x":1},"a":{"y":2}}', 'a')).toBe('{"y":2}');
    expect(rawMember('{"\\u0061":[3]}', 'a')).toBe('[3]');
  });

  it('compacts: no whitespace, canonical strings, key order and number literals kept', () => {
    const raw = rawMember(body, 'external_metadata')!;
    expect(compactJson(raw)).toBe(
      '{"z":1,"a":12345678901234567890,"m":0.1000000000000000055511,"s":"a/b é \\" ]}","n":{"y":[1.0,2e10,-0E-0],"x":null}}',
    );
    // Same value as the original for JSON.parse.
    expect(JSON.parse(compactJson(raw))).toEqual(JSON.parse(raw));
  });

  it('stringifyJson writes RawJson values as their text; everything else as JSON.stringify', () => {
    const v = {
      data: {
        id: 'x',
        external_metadata: new RawJson('{"b": 1.50, "a": 2}'),
        list: [new RawJson('[ 1e400 ]')],
        s: 'plain',
      },
    };
    expect(stringifyJson(v)).toBe(
      '{"data":{"id":"x","external_metadata":{"b":1.50,"a":2},"list":[[1e400]],"s":"plain"}}',
    );
    expect(stringifyJson({ a: 1, b: ['/é'] })).toBe(JSON.stringify({ a: 1, b: ['/é'] }));
  });

  it('a caller string that looks like the placeholder is not replaced', () => {
    const s = '\u0000ov-raw-00000000-0000-0000-0000-000000000000:0';
    expect(JSON.parse(stringifyJson({ s, m: new RawJson('{}') }))).toEqual({ s, m: {} });
  });
});
