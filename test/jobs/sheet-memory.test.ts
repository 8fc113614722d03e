/**
 * What a spreadsheet job keeps of its rows outside memory, or as numbers (issue 47's peak RSS): the
 * rows' outcomes go to a scratch file and come back as the results file, each row's line followed
 * by its problems, then the problems of rows that have no outcome, whatever a title holds (commas,
 * quotes, line breaks); record URIs kept as prefix and id come back as they were, in order.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { RowResults } from '../../src/jobs/spreadsheets/row-results';
import { Problems } from '../../src/jobs/spreadsheets/sheet';
import { UriList, UriSet } from '../../src/store/uri-list';

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

describe('a spreadsheet job\'s rows kept out of memory', () => {
  it('writes the results file from the scratch file: each row, its problems under it, then the problems of rows without an outcome', async () => {
    const results = new RowResults();
    const problems = new Problems();
    problems.add({ row: 4, column: 'hierarchy', severity: 'error', message: 'the row above it was not written' });
    problems.add({ row: 2, column: 'begin_1', severity: 'dropped', message: "'19x' is not a date, \"left out\"" });
    problems.add({ row: 2, severity: 'dropped', message: 'second' });
    results.push({ row: 2, uri: '/repositories/2/archival_objects/7', title: 'Letters, "mostly"\nand notes', ref_id: 'r1' });
    // Enough rows to go through the scratch file more than once (it is written 64 KB at a time).
    for (let row = 5; row < 3005; row++) results.push({ row, uri: `/repositories/2/archival_objects/${row}`, title: `Component ${row}` });
    assert.equal(results.length, 3001);
    const csv = await text(results.csv(problems));
    const lines = csv.split('\r\n');
    assert.equal(lines[0], 'row,title,uri,ref_id,problem');
    assert.equal(lines[1], '2,"Letters, ""mostly""\nand notes",/repositories/2/archival_objects/7,r1,', 'a line break in a title is kept as it was');
    assert.equal(lines[2], `2,,,,"left out (begin_1): '19x' is not a date, ""left out"""`);
    assert.equal(lines[3], '2,,,,left out: second');
    assert.equal(lines[4], '5,Component 5,/repositories/2/archival_objects/5,,');
    assert.equal(lines[3003], '3004,Component 3004,/repositories/2/archival_objects/3004,,');
    assert.equal(lines[3004], '4,,,,error (hierarchy): the row above it was not written', 'a row without an outcome: its problems at the end');
    assert.equal(lines[3005], '');
    assert.equal(lines.length, 3006);
    results.remove();
    results.remove();
  });

  it('writes a results file of problems alone when no row has an outcome, and leaves no scratch file behind', async () => {
    const results = new RowResults();
    const problems = new Problems();
    problems.add({ row: 9, severity: 'error', message: 'no level' });
    assert.equal(await text(results.csv(problems)), 'row,title,uri,ref_id,problem\r\n9,,,,error: no level\r\n');
    const scratch = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('sheet-results-')).length;
    const before = scratch();
    results.push({ row: 1, title: 'x' });
    assert.equal(await text(results.csv(new Problems())), 'row,title,uri,ref_id,problem\r\n1,x,,,\r\n');
    assert.equal(scratch(), before + 1);
    results.remove();
    assert.equal(scratch(), before, 'the scratch file is removed');
  });

  it('gives back every URI as it was pushed, in order, including those not of prefix-and-id form', () => {
    const uris = ['/repositories/2/archival_objects/1', '/agents/people/12', '/repositories/2/archival_objects/1', '/x/007', '/x/abc', '/vocabularies/1', 'no-slash', '/x/0',
      ...Array.from({ length: 2000 }, (_, i) => `/repositories/${i % 3}/top_containers/${i + 123456789012}`)];
    const list = UriList.of(uris);
    assert.equal(list.length, uris.length);
    assert.deepEqual([...list], uris);
    assert.deepEqual([...list.slices(500)].map((s) => s.length), [500, 500, 500, 500, 8]);
    assert.deepEqual([...list.slices(500)].flat(), uris);
    assert.deepEqual([...list.holding(['/x/007', '/x/7', '/agents/people/12', '/agents/people/13'])].sort(), ['/agents/people/12', '/x/007']);
    const set = new UriSet();
    for (const uri of uris) set.add(uri);
    for (const uri of uris) assert.ok(set.has(uri), uri);
    for (const uri of ['/x/7', '/x/00', '/repositories/2/archival_objects/2', '/agents/people/1', 'no-slash2']) assert.ok(!set.has(uri), uri);
  });
});
