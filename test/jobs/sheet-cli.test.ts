import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { sampleRecord } from '../fixtures';
import { startTestApp, STORE } from '../helpers';
import { cli } from '../processes';

const AO_TEMPLATE = fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'spreadsheets', 'bulk_import_template.csv'), 'utf8').replace(/\r\n/g, '\n').trimEnd();

/** A sheet in ArchivesSpace's archival-object template, rows by field code. */
function sheet(rows: Array<Record<string, string>>): string {
  const codes = AO_TEMPLATE.split('\n')[0].split(',');
  return `${AO_TEMPLATE}\n${rows.map((r) => codes.map((c) => r[c] ?? '').join(',')).join('\n')}\n`;
}

describe(`archive-records import-file for spreadsheets (${STORE})`, function () {
  this.timeout(300_000);
  it('runs a bulk import and an updater sheet as their jobs do, without a server, and fails with status 1 naming the row', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheet-cli-'));
    const t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'store.db')}` } : {});
    try {
      const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
      const repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'CLISHEET', name: 'CLI sheets' })).body.id;
      const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), ead_id: 'CLI01' }).expect(200)).body;
      const env = { DB_URL: t.config.dbUrl, SEARCH_PATH: path.join(dir, 'search.db'), INDEXER: 'off' };
      const csv = path.join(dir, 'rows.csv');
      fs.writeFileSync(csv, sheet([
        { ead: 'CLI01', title: 'CLI series', hierarchy: '1', level: 'series' },
        { ead: 'CLI01', title: 'CLI file', hierarchy: '2', level: 'file' },
      ]));
      const base = ['import-file', '--repo', String(repo)];
      const noResource = await cli([...base, '--type', 'bulk_import_ao', csv], env);
      assert.equal(noResource.code, 1);
      assert.match(noResource.stderr, /needs --resource/);

      const dry = await cli([...base, '--type', 'bulk_import_ao', '--resource', String(resource.id), '--only-validate', csv], env);
      assert.equal(dry.code, 0, dry.stderr);
      const ok = await cli([...base, '--type', 'bulk_import_ao', '--resource', String(resource.id), '--results', dir, csv], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(JSON.parse(ok.stdout), [{ file: 'rows.csv', type: 'bulk_import_ao', status: 'completed', records: 2 }]);
      assert.ok(fs.existsSync(path.join(dir, 'rows-results.csv')));
      assert.match(ok.stderr, /imported 2 row\(s\)/);
      const tree = (await t.http.get(`${resource.uri}/tree/root`).set(H).expect(200)).body;
      assert.equal(tree.child_count, 1, 'the dry run wrote nothing; the real run wrote the series once');

      const bad = path.join(dir, 'bad.csv');
      fs.writeFileSync(bad, sheet([{ ead: 'CLI01', title: 'No level', hierarchy: '1' }]));
      const failed = await cli([...base, '--type', 'bulk_import_ao', '--resource', String(resource.id), bad], env);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /row \d+, column 'level'/);
      assert.equal(JSON.parse(failed.stdout)[0].status, 'failed');

      // The updater's sheet, edited, applied from the command line.
      const generated = await t.http.post(`/bulk_archival_object_updater/repositories/${repo}/generate_spreadsheet`).set(H).type('form')
        .send({ resource_uri: resource.uri }).buffer(true).parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(generated.body);
      book.getWorksheet('Updates')!.getRow(3).getCell(3).value = 'CLI series, renamed';
      const xlsx = path.join(dir, 'update.xlsx');
      fs.writeFileSync(xlsx, Buffer.from(await book.xlsx.writeBuffer()));
      const updated = await cli([...base, '--type', 'bulk_archival_object_updater', xlsx], env);
      assert.equal(updated.code, 0, updated.stderr);
      assert.equal(JSON.parse(updated.stdout)[0].records, 1);
      const series = (await t.http.get(`${resource.uri}/tree/root`).set(H)).body.precomputed_waypoints[''][0][0];
      assert.equal(series.title, 'CLI series, renamed');
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
