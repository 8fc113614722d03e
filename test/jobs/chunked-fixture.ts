import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers';

/**
 * A finding aid of `n` components, each with a ref_id, in boxes of 50; `tail` is put before </dsc>.
 * `container` sets the containers' type (a type not on the container_type list is added to it by
 * the import) and label (the instance type, likewise); `onResource` gives the resource a container
 * of its own too (box `unitid`-0), so that the file's first chunk already needs them.
 */
export function chunkedEad(n: number, unitid: string, tail = '', container: { type?: string; label?: string; onResource?: boolean } = {}): string {
  const attrs = `type="${container.type ?? 'box'}"${container.label ? ` label="${container.label}"` : ''}`;
  const components = Array.from({ length: n }, (_, i) =>
    `<c level="file" id="${unitid}-ref-${i + 1}"><did><unittitle>File ${i + 1}</unittitle><unitdate normal="1900/1950">1900-1950</unitdate>`
    + `<container ${attrs}>${unitid}-${1 + Math.floor(i / 50)}</container></did></c>`).join('');
  return `<ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>${unitid}</eadid><filedesc><titlestmt><titleproper>Chunked</titleproper></titlestmt></filedesc></eadheader>`
    + `<archdesc level="collection"><did><unittitle>Chunked ${unitid}</unittitle><unitid>${unitid}</unitid><unitdate normal="1900/1950">1900-1950</unitdate>`
    + (container.onResource ? `<container ${attrs}>${unitid}-0</container>` : '') + `<physdesc><extent>10 linear feet</extent></physdesc><langmaterial><language langcode="eng">English</language></langmaterial></did><dsc>${components}${tail}</dsc></archdesc></ead>`;
}

/** A test app whose import jobs write in chunks, a repository of its own, and what the chunked-job tests ask of them. */
export interface ChunkedJobs {
  t: TestApp;
  H: Record<string, string>;
  base: string;
  /** Records still pending for some job. */
  pendingRows(): Promise<number>;
  /** Rows of every table an import writes (tree_child_counts: groups with children). */
  tableCounts(): Promise<Record<string, number>>;
  /** Submits `content` as an import job of `importType`; answers the job's URI. */
  submit(importType: string, name: string, content: string): Promise<string>;
}

/** Chunks of 20 ms of the writer each (short, so that a small file has many), then `env`. */
export async function startChunkedJobs(repoCode: string, env: Record<string, string>): Promise<ChunkedJobs> {
  const t = await startTestApp({ IMPORT_CHUNK_MS: '20', ...env });
  const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  const base = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: repoCode, name: repoCode })).body.id}`;
  const count = async (q: Knex.QueryBuilder) => Number((await q.count({ n: '*' }).first())!.n);
  const knex = () => t.services.db.knex;
  return {
    t, H, base,
    pendingRows: () => count(knex()('records').whereNotNull('pending_job')),
    async tableCounts() {
      const out: Record<string, number> = {};
      for (const table of ['records', 'unique_keys', 'lookup_keys', 'record_refs', 'change_log', 'record_history']) out[table] = await count(knex()(table));
      out.tree_child_counts = await count(knex()('tree_child_counts').where('n', '>', 0));
      return out;
    },
    async submit(importType, name, content) {
      const res = await t.http.post(`${base}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: importType, filenames: [name] } }))
        .attach('files[]', Buffer.from(content), name);
      assert.equal(res.status, 200, res.text);
      return res.body.uri as string;
    },
  };
}
