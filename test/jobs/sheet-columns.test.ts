import assert from 'node:assert/strict';
import { valuesAt } from '../../src/records/keys';
import { ColumnReader } from '../../src/jobs/spreadsheets/columns';
import { Problems, SheetRow } from '../../src/jobs/spreadsheets/sheet';
import { startTestApp, STORE, TestApp } from '../helpers';

describe(`sheet columns: list values matched once per catalogue (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(() => t.close());

  it('reads a cell written loosely as its value on every row, and drops it once the list no longer has the value', async () => {
    const reader = new ColumnReader(t.services, (_list, raw) => raw, ['', 'date_type']);
    const problems = new Problems();
    const row = (n: number) => new SheetRow(n, new Map(), problems);
    // "Bulk" is the value bulk written loosely; the second row finds it as the first did.
    assert.equal(reader.listValue(row(5), 'date_type', 'date_type', 'Bulk'), 'bulk');
    assert.equal(reader.listValue(row(6), 'date_type', 'date_type', 'Bulk'), 'bulk');
    assert.deepEqual(problems.all, []);

    // The value suppressed meanwhile (the catalogue read again): the next row's cell is dropped, with the reason.
    const list = (await t.http.get('/config/enumerations').set(H)).body.find((l: { name: string }) => l.name === 'date_type');
    const bulk = list.enumeration_values.find((v: { value: string }) => v.value === 'bulk');
    await t.http.post(`${bulk.uri}/suppressed`).query({ suppressed: true }).set(H).expect(200);
    assert.equal(reader.listValue(row(7), 'date_type', 'date_type', 'Bulk'), undefined);
    assert.equal(problems.all.length, 1);
    assert.deepEqual([problems.all[0].row, problems.all[0].column, problems.all[0].severity], [7, 'date_type', 'dropped']);
    assert.match(problems.all[0].message, /^'Bulk' is not a value of the list date_type/);
  });
});

describe('key field paths (parsed once per path)', () => {
  const agent = { names: [{ authorized: false, sort_name: 'B' }, { authorized: true, sort_name: 'A' }], ids: [{ v: ['x', 'y'] }, { v: 'z' }] };

  it('reads the same path the same way each time: filters, mapped arrays, plain fields', () => {
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(valuesAt(agent, 'names[?authorized].sort_name'), ['A']);
      assert.deepEqual(valuesAt(agent, 'ids[].v[]'), ['x', 'y', 'z']);
      assert.deepEqual(valuesAt(agent, 'names[].sort_name'), ['B', 'A']);
    }
  });

  it('answers undefined for a path the record does not have', () => {
    assert.equal(valuesAt(agent, 'title'), undefined);
    assert.deepEqual(valuesAt({ names: [] }, 'names[?authorized].sort_name'), []);
  });
});
