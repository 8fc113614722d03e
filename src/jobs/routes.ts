/**
 * Background jobs, as ArchivesSpace's routes: submit (with files, multipart), list, read, log,
 * created records, cancel, delete; import types. Imports need import_records in the repository.
 */
import fs from 'node:fs';
import { can } from '../access/permissions';
import { errors } from '../errors';
import { importers } from '../exchange/import';
import { JOB_TYPES, jobTypeNamed } from './types';
import { cancelJob, deleteJob, getJob, jobLog, jobRecords, listJobs, outputFile, outputFiles, submitJob } from './queue';
import type { Obj } from '../json';
import type { Upload } from './job-type';
import { readBatch, runBatch } from '../records/batch-import';
import { PAGE_SIZE_PARAM, pageSize } from '../records/paging';
import { Call, Endpoint, json, Reply } from '../records/endpoint';

const base = '/repositories/:repo_id/jobs';
const id = { name: 'id', type: 'integer', required: true } as const;
const page = { name: 'page', type: 'integer', required: true, check: (v: number) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`) } as const;

function jobObject(raw: unknown): Obj {
  let job: unknown = raw;
  if (typeof raw === 'string') {
    try {
      job = JSON.parse(raw);
    } catch (err) {
      throw errors.notJson('the job', (err as Error).message);
    }
  }
  if (!job || typeof job !== 'object') throw errors.paramRequired('job');
  // The job comes as {"job_type": ..., "job": {...}} or as the typed job object itself.
  const outer = job as Obj;
  // job_params (a report's parameters) sits beside the typed job in ArchivesSpace's job record.
  if (!outer.job || typeof outer.job !== 'object') return outer;
  return { ...(outer.job_params === undefined ? {} : { job_params: outer.job_params }), ...outer.job, job_type: outer.job_type };
}

/** The permissions a job type asks of whoever submits or cancels one of its jobs, each in the job's repository. */
async function requireAll(call: Call, permissions: string[]): Promise<void> {
  for (const permission of permissions) {
    if (!(await can(call.s, call.actor, permission, call.repoId))) throw errors.accessDenied();
  }
}

async function submit(call: Call, job: Obj, files: Upload[]) {
  const type = jobTypeNamed(String(job.jsonmodel_type ?? job.job_type ?? ''));
  await requireAll(call, type.createPermissions);
  const created = await submitJob(call.s, call.repoId!, call.actor!.username, job, files);
  call.s.jobs?.nudge();
  return json(created);
}

export function jobEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: `${base}_with_files`, permission: 'create_job', multipart: true,
      summary: 'Create a new job and post input files (multipart: a `job` field with the job JSON and `files[]`)',
      handle: async (call) => submit(call, jobObject(call.form?.fields.job), call.form?.files ?? []),
    },
    {
      method: 'post', path: base, permission: 'create_job', rawJsonBody: true,
      summary: 'Create a new job (an import needs its files: use jobs_with_files)',
      handle: async (call) => submit(call, jobObject(call.rawBody), []),
    },
    {
      method: 'post', path: '/repositories/:repo_id/batch_imports', permission: 'import_records', rawJsonBody: true,
      params: [{ name: 'migration', type: 'boolean', default: false }, { name: 'skip_results', type: 'boolean', default: false }],
      produces: 'text/plain',
      summary: 'Import a batch of records (a JSON array, each record with a temporary uri that links between them): answered as a JSON array of progress entries ending with {"saved": {temporary uri: [uri, id]}} or {"errors": [...]}',
      handle: batchImport,
    },
    {
      method: 'get', path: '/job_types', permission: null, summary: 'List all supported job types',
      handle: async () => json(Object.fromEntries([...JOB_TYPES.values()].filter((t) => !t.hidden).map((t) => [t.name, { create_permissions: t.createPermissions, cancel_permissions: t.cancelPermissions }]))),
    },
    {
      method: 'get', path: `${base}/import_types`, permission: null, summary: 'List all supported import job types',
      // ArchivesSpace answers name and description; label is the same text, as this API first answered it.
      handle: async () => json(Object.values(importers).map((i) => ({ name: i.type, description: i.label, label: i.label }))),
    },
    {
      method: 'get', path: base, permission: 'view_repository', params: [page, PAGE_SIZE_PARAM], summary: "Get a list of the repository's jobs, newest first",
      handle: async (call) => json(await listJobs(call.s, call.repoId!, undefined, call.params.page, pageSize(call.s.config, call.params.page_size))),
    },
    {
      method: 'get', path: `${base}/active`, permission: 'view_repository', summary: 'Get a list of running and queued jobs',
      handle: async (call) => json((await listJobs(call.s, call.repoId!, ['running', 'queued'], 1, 10_000)).results),
    },
    {
      method: 'get', path: `${base}/archived`, permission: 'view_repository', params: [page, PAGE_SIZE_PARAM], summary: 'Get a list of finished jobs',
      handle: async (call) => json(await listJobs(call.s, call.repoId!, ['completed', 'failed', 'canceled'], call.params.page, pageSize(call.s.config, call.params.page_size))),
    },
    {
      method: 'get', path: `${base}/:id`, permission: 'view_repository', params: [id], errors: ['NotFound'], summary: 'Get a job',
      handle: async (call) => json(await getJob(call.s, call.repoId!, call.params.id)),
    },
    {
      method: 'get', path: `${base}/:id/log`, permission: 'view_repository', errors: ['NotFound'], produces: 'text/plain',
      params: [id, { name: 'offset', type: 'integer', default: 0, check: (v) => (v >= 0 ? undefined : `must be a non-negative integer but given: ${v}`) }],
      summary: "Get a job's log from `offset` (characters) to its end",
      handle: async (call) => ({ text: await jobLog(call.s, call.repoId!, call.params.id, call.params.offset), contentType: 'text/plain; charset=utf-8' }),
    },
    {
      method: 'get', path: `${base}/:id/output_files`, permission: 'view_repository', params: [id], errors: ['NotFound'], summary: "A job's output files",
      handle: async (call) => json(await outputFiles(call.s, call.repoId!, call.params.id)),
    },
    {
      method: 'get', path: `${base}/:id/output_files/:file_id`, permission: 'view_repository', errors: ['NotFound'], produces: 'text/plain',
      params: [id, { name: 'file_id', type: 'integer', required: true }], summary: 'One output file of a job',
      handle: async (call) => {
        const file = await outputFile(call.s, call.repoId!, call.params.id, call.params.file_id);
        return {
          stream: async (write) => {
            for await (const chunk of fs.createReadStream(file.path, { highWaterMark: 256 * 1024 })) await write(chunk as Buffer);
          },
          contentType: file.contentType,
        };
      },
    },
    {
      method: 'get', path: `${base}/:id/records`, permission: 'view_repository', errors: ['NotFound'], params: [id, page, PAGE_SIZE_PARAM],
      summary: 'The records a job created',
      handle: async (call) => {
        const all = await jobRecords(call.s, call.repoId!, call.params.id);
        const size = pageSize(call.s.config, call.params.page_size);
        const results = all.slice((call.params.page - 1) * size, call.params.page * size).map((r) => ({ record: r }));
        return json({ first_page: 1, last_page: Math.max(1, Math.ceil(all.length / size)), this_page: call.params.page, total: all.length, results });
      },
    },
    {
      method: 'post', path: `${base}/:id/cancel`, permission: 'cancel_job', params: [id], errors: ['NotFound'], summary: 'Cancel a job',
      handle: async (call) => {
        const job = await getJob(call.s, call.repoId!, call.params.id);
        await requireAll(call, jobTypeNamed(String(job.job_type)).cancelPermissions);
        return json(await cancelJob(call.s, call.repoId!, call.params.id));
      },
    },
    {
      method: 'delete', path: `${base}/:id`, permission: 'cancel_job', params: [id], errors: ['NotFound', 'Conflict'], summary: 'Delete a job that is not running',
      handle: async (call) => json(await deleteJob(call.s, call.repoId!, call.params.id)),
    },
  ];
}

/**
 * The answer is ArchivesSpace's: a JSON array written as the batch goes (stages and counts, which
 * also keep a long import's connection alive), whose last entry holds the results or the errors.
 * A body that is not a batch at all is refused with 400 before anything starts.
 */
async function batchImport(call: Call): Promise<Reply> {
  const records = await readBatch(call.s, call.actor!, call.repoId!, call.rawBody);
  return {
    contentType: 'text/plain; charset=utf-8',
    stream: async (send) => {
      await send('[\n');
      const results = await runBatch(call.s, call.actor!, call.repoId!, records, (update) => send(`${JSON.stringify(update)},\n`));
      if (call.params.skip_results && !results.errors) results.saved = [];
      await send(`${JSON.stringify(results)}\n\n]`);
    },
  };
}
