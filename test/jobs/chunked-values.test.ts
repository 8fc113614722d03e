import assert from 'node:assert/strict';
import { STORE, type TestApp } from '../helpers';
import { chunkedEad, type ChunkedJobs, startChunkedJobs } from './chunked-fixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BROKEN = '<c level="file"><did></did></c>';

/**
 * The values an import job written in chunks adds to editable value lists (a new container type,
 * a new instance type) are committed with the chunk that needs them; when the file fails or the
 * job is canceled they go again, as with a file written in one transaction, unless something else
 * used them meanwhile (another client's record, another import, an edit of the list). The kill of
 * the process is in chunked-crash.test.ts.
 */
// Import jobs chunk on SQLite only (import-job.ts): on MariaDB a file is one transaction, whose rollback takes its values back.
(STORE === 'sqlite' ? describe : describe.skip)(`values a chunked import adds to value lists (${STORE})`, function () {
  this.timeout(300_000);
  let c: ChunkedJobs;
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;

  before(async () => {
    c = await startChunkedJobs('VALUES', { IMPORT_PAUSE_BETWEEN_CHUNKS_MS: '100', JOB_CONCURRENCY: '2' });
    ({ t, H, base } = c);
  });
  after(() => t?.close());

  const knex = () => t.services.db.knex;
  const list = async (name: string) => {
    const res = await t.http.get(`/config/enumerations/names/${name}`).set(H);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  /** Both lists the fixture's containers feed, as a client reads them. */
  const lists = async () => ({ container_type: await list('container_type'), instance_instance_type: await list('instance_instance_type') });
  const valueRow = (value: string) => knex()('enumeration_values').where({ value }).first('enum_name', 'pending_job');
  const submit = (name: string, xml: string) => c.submit('ead_xml', name, xml);
  /** Waits until the running import has committed `value` (marked as its own) and some more chunks. */
  const untilAdded = async (value: string) => {
    for (let i = 0; i < 3000 && !(await valueRow(value)); i++) await sleep(10);
    const row = await valueRow(value);
    assert.ok(row?.pending_job, `the import added ${value}, marked as its own: ${JSON.stringify(row)}`);
    assert.ok(t.services.enums.get(row.enum_name)!.values.includes(value), 'the catalogue has it while the import runs');
    for (let i = 0; i < 3000 && Number((await knex()('records').whereNotNull('pending_job').count({ n: '*' }).first())!.n) < 100; i++) await sleep(10);
  };
  const status = async (jobUri: string) => (await t.http.get(jobUri).set(H)).body.status;
  const finish = async (jobUri: string, expected: string) => {
    await t.services.jobs!.idle(480_000);
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, expected, JSON.stringify(job));
  };
  const gone = (value: string) => {
    for (const name of ['container_type', 'instance_instance_type']) assert.ok(!t.services.enums.get(name)!.values.includes(value), `the catalogue dropped ${value}`);
  };

  it('a file that fails after some chunks leaves the value lists as they were', async () => {
    const before = await lists();
    const jobUri = await submit('fails.xml', chunkedEad(1000, 'FAILS', BROKEN, { type: 'Fail Crate', label: 'Fail Media' }));
    await untilAdded('fail_crate');
    await finish(jobUri, 'failed');
    assert.deepEqual(await lists(), before);
    assert.equal(await valueRow('fail_crate'), undefined);
    assert.equal(await valueRow('fail_media'), undefined);
    gone('fail_crate');
    gone('fail_media');
  });

  it('a canceled import leaves the value lists as they were', async () => {
    const before = await lists();
    const jobUri = await submit('canceled.xml', chunkedEad(2000, 'CANCELS', '', { type: 'Cancel Crate', label: 'Cancel Media' }));
    await untilAdded('cancel_crate');
    assert.equal((await t.http.post(`${jobUri}/cancel`).set(H)).status, 200);
    await finish(jobUri, 'canceled');
    assert.deepEqual(await lists(), before);
    assert.equal(await valueRow('cancel_media'), undefined);
    gone('cancel_crate');
  });

  it('a value another client\'s record used meanwhile stays; the one nothing used goes', async () => {
    const jobUri = await submit('used.xml', chunkedEad(1500, 'USED', BROKEN, { type: 'Used Crate', label: 'Unused Media' }));
    await untilAdded('used_crate');
    const container = await t.http.post(`${base}/top_containers`).set(H).send({ type: 'used_crate', indicator: 'beside-1' });
    assert.equal(container.status, 200, container.text);
    assert.equal(await status(jobUri), 'running', 'the other client wrote while the import ran');
    await finish(jobUri, 'failed');
    assert.deepEqual(await valueRow('used_crate'), { enum_name: 'container_type', pending_job: null });
    assert.ok((await list('container_type')).values.includes('used_crate'));
    assert.equal((await t.http.get(container.body.uri).set(H)).body.type, 'used_crate');
    assert.equal(await valueRow('unused_media'), undefined);
    gone('unused_media');
  });

  it('a value a client named in an edit of its list meanwhile stays', async () => {
    const jobUri = await submit('edited.xml', chunkedEad(1500, 'EDITED', BROKEN, { type: 'Edited Crate', label: 'Edited Media' }));
    await untilAdded('edited_media');
    const current = await list('instance_instance_type');
    assert.ok(current.values.includes('edited_media'));
    const edit = await t.http.post(current.uri).set(H).send({ ...current, values: [...current.values, 'chosen_media'] });
    assert.equal(edit.status, 200, edit.text);
    assert.equal(await status(jobUri), 'running');
    await finish(jobUri, 'failed');
    const after = await list('instance_instance_type');
    assert.ok(after.values.includes('edited_media') && after.values.includes('chosen_media'), JSON.stringify(after.values));
    assert.equal(await valueRow('edited_crate'), undefined);
  });

  it('a value another import uses stays when the import that added it fails: it passes to that import', async () => {
    const failing = await submit('first.xml', chunkedEad(400, 'FIRST', BROKEN, { type: 'Shared Crate' }));
    await untilAdded('shared_crate');
    const second = await submit('second.xml', chunkedEad(3000, 'SECOND', '', { type: 'Shared Crate' }));
    for (let i = 0; i < 3000 && (await status(failing)) === 'running'; i++) await sleep(20);
    assert.equal(await status(failing), 'failed');
    assert.equal(await status(second), 'running', 'the second import was still running when the first failed');
    // Only the second import's pending records use it: it is that job's now, and goes if that one fails too.
    assert.deepEqual(await valueRow('shared_crate'), { enum_name: 'container_type', pending_job: Number(second.split('/').pop()) });
    await finish(second, 'completed');
    assert.deepEqual(await valueRow('shared_crate'), { enum_name: 'container_type', pending_job: null });
    const containers = await t.http.get(`${base}/top_containers`).query({ page: 1, page_size: 100 }).set(H);
    assert.equal(containers.body.results.filter((c: { type: string }) => c.type === 'shared_crate').length, 60);
  });

  it('a file that is published keeps the values it added', async () => {
    const jobUri = await submit('kept.xml', chunkedEad(300, 'KEPT', '', { type: 'Kept Crate', label: 'Kept Media' }));
    await finish(jobUri, 'completed');
    assert.deepEqual(await valueRow('kept_crate'), { enum_name: 'container_type', pending_job: null });
    assert.deepEqual(await valueRow('kept_media'), { enum_name: 'instance_instance_type', pending_job: null });
    assert.ok((await list('instance_instance_type')).values.includes('kept_media'));
  });
});
