import type { Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import { createRecords } from '../../records/create-batch';
import { createRecord } from '../../records/write';
import { prepareRecord } from '../../validation';
import type { Tx } from '../../store/database';
import { childRows, parentRids } from '../../store/job-reads';
import { holdDerivedRows } from '../../store/transaction-memo';
import type { JobType } from '../job-type';
import { JobCanceled, recordInRepository, requiredString, stopIfCanceled } from '../job-records';
import { letEventLoopTurn } from '../../event-loop';
import { writeTransaction } from '../../records/context';

/**
 * resource_duplicate_job (ArchivesSpace's ResourceDuplicateRunner and Lib::Resource::Duplicate,
 * hidden from GET /job_types): a copy of the resource at `source` with its whole tree, in one
 * transaction. The copy's id_0, title and ead_id start with "[Duplicated] " and it is unpublished;
 * every component is created again under the copy in the same order, with a new ref_id, keeping
 * its instances (the same top containers), linked agents, subjects, accessions and notes. A copy
 * that fails validation (an id_0 a copy already took) fails the job, and nothing is written.
 */
const PREFIX = '[Duplicated] ';
/** Siblings created together at most. */
const GROUP = 500;

/** What the server sets on every record (and what names the original): left for the create to set anew. */
const NOT_COPIED = ['uri', 'id', 'lock_version', 'created_by', 'last_modified_by', 'create_time', 'system_mtime', 'user_mtime',
  'ref_id', 'display_string', 'position', 'parent', 'resource', 'tree', 'slug', 'ark_name', 'has_unpublished_ancestor'];

/** A stored record's JSON read into a fresh object (nothing else holds it: no clone), less what the create sets anew. */
function copyOf(json: string): Obj {
  const copy = JSON.parse(json) as Obj;
  for (const field of NOT_COPIED) delete copy[field];
  return copy;
}

async function create(s: Services, actor: Actor, trx: Tx, repoId: number, type: string, body: Obj): Promise<string> {
  const prepared = prepareRecord(s.registry, s.enums, type, body);
  return (await createRecord(s, actor, { type: s.registry.type(type), repoId }, prepared.record, prepared.warnings, { trx })).uri;
}

export const resourceDuplicateJob: JobType = {
  name: 'resource_duplicate_job',
  hidden: true,
  createPermissions: [],
  cancelPermissions: [],

  async accept(s, repoId, job) {
    const source = requiredString(job, 'source');
    await recordInRepository(s, repoId, 'source', source, 'resource');
    return { jsonmodel_type: 'resource_duplicate_job', source };
  },

  async run(ctx) {
    const { s, actor, repoId } = ctx;
    const source = await recordInRepository(s, repoId, 'source', ctx.job.source, 'resource');
    await ctx.log(`Going to duplicate resource with id ${source.id}.`);
    let copyUri = '';
    let components = 0;
    try {
      await writeTransaction(s, async (trx) => {
        // The copies' keys, lookups and links are written a hundred rows to a statement, as a batch
        // of children's are: a clash is still found before the commit, and fails the whole copy.
        holdDerivedRows(trx, { uniqueKeys: true });
        stopIfCanceled(ctx.signal);
        const resource = copyOf(source.json);
        resource.id_0 = `${PREFIX}${resource.id_0 ?? ''}`;
        resource.title = `${PREFIX}${resource.title ?? ''}`;
        if (resource.ead_id) resource.ead_id = `${PREFIX}${resource.ead_id}`;
        resource.publish = false;
        copyUri = await create(s, actor, trx, repoId, 'resource', resource);
        // Only the nodes that have nodes under them are read for their children, and each sibling
        // group is created together (createRecords: its rows a hundred to a statement), in order.
        const parents = await parentRids(trx, source.uri);
        const copyTree = async (parentRid: number | null, parentUri: string | undefined) => {
          const children = await childRows(trx, source.uri, parentRid);
          for (let start = 0; start < children.length;) {
            stopIfCanceled(ctx.signal);
            // A run of siblings of one type (a tree's nodes are of one type, but a copy does not assume it).
            const bodies: Obj[] = [];
            let type = '';
            let end = start;
            for (; end < children.length && end - start < GROUP; end++) {
              await letEventLoopTurn();
              const body = copyOf(children[end].json);
              const bodyType = String(body.jsonmodel_type ?? 'archival_object');
              if (type && bodyType !== type) break;
              type = bodyType;
              body.resource = { ref: copyUri };
              if (parentUri) body.parent = { ref: parentUri };
              bodies.push(prepareRecord(s.registry, s.enums, type, body).record);
            }
            const created = await createRecords(s, actor, { type: s.registry.type(type), repoId }, bodies, trx);
            components += created.length;
            for (let k = 0; k < created.length; k++) {
              if (parents.has(children[start + k].rid)) await copyTree(children[start + k].rid, created[k].uri);
            }
            start = end;
            // Other requests are answered between groups (on SQLite the store's calls do not wait on I/O).
            await letEventLoopTurn();
          }
        };
        await copyTree(null, undefined);
      });
    } catch (err) {
      if (err instanceof JobCanceled) {
        await ctx.log('canceled: nothing was copied');
        return 'canceled';
      }
      const body = (err as { body?: unknown }).body;
      await ctx.log(`error: Failed to duplicate resource from resource with id ${source.id}; ${body === undefined ? (err as Error).message : `Validation error ${JSON.stringify(body)}`}`);
      await ctx.log('Job Failed.');
      return 'failed';
    }
    await ctx.addRecords([copyUri]);
    await ctx.log(`Successfully duplicated resource ${source.id} to resource ${copyUri.split('/').pop()} (${components} component(s)).`);
    await ctx.log('All done. Please click refresh to get a link to the new resource.');
    return 'completed';
  },
};
