import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import { holdDerivedRows } from '../../store/transaction-memo';
import type { JobType } from '../job-type';
import { JobCanceled, pagesOf, recordInRepository, requiredString, saveAllEdited, stopIfCanceled } from '../job-records';
import { letEventLoopTurn } from '../../event-loop';
import { writeTransaction } from '../../records/context';

/**
 * find_and_replace_job (ArchivesSpace's FindAndReplaceRunner): in every record of `record_type`
 * within the tree of the resource at `base_record_uri` (the resource itself, its components, and
 * subrecords of that type inside them, a date or an extent), replaces `find` in `property` with
 * `replace`. `find` written between slashes (`/.../`) is a regular expression, else a literal
 * string; every occurrence is replaced, and the replacement may name groups as Ruby's gsub does
 * (`\1`, `\0` or `\&` for the whole match). All in one transaction, as ArchivesSpace runs it: a
 * record that fails validation after the change, or that someone saved meanwhile, fails the job and
 * nothing is written.
 */

/** A regular expression when written between slashes (ArchivesSpace: `/^\/.+\/$/`), else the literal text. */
function pattern(find: string): RegExp | string {
  if (!/^\/.+\/$/s.test(find)) return find;
  try {
    return new RegExp(find.slice(1, -1), 'g');
  } catch (err) {
    throw errors.invalidParam('find', `not a regular expression: ${(err as Error).message}`);
  }
}

/** Ruby's gsub replacement text: `\1`..`\9` a group, `\0` and `\&` the match, `\\` a backslash. */
function substitute(replace: string, match: string, groups: Array<string | undefined>): string {
  return replace.replace(/\\(\d|&|\\)/g, (_, code: string) => {
    if (code === '\\') return '\\';
    if (code === '&' || code === '0') return match;
    return groups[Number(code) - 1] ?? '';
  });
}

export function replaceAll(text: string, find: RegExp | string, replace: string): string {
  if (typeof find === 'string') {
    return text.split(find).join(substitute(replace, find, []));
  }
  find.lastIndex = 0;
  return text.replace(find, (match: string, ...rest: unknown[]) => {
    const groupCount = rest.findIndex((r) => typeof r === 'number');
    return substitute(replace, match, rest.slice(0, groupCount) as Array<string | undefined>);
  });
}

/** Replaces in `property` of every object of `recordType` in `node` (itself included); how many changed. */
function replaceIn(node: unknown, recordType: string, property: string, change: (text: string) => string): number {
  if (Array.isArray(node)) return node.reduce((n: number, item) => n + replaceIn(item, recordType, property, change), 0);
  if (!isPlainObject(node)) return 0;
  let changed = 0;
  if (node.jsonmodel_type === recordType && typeof node[property] === 'string') {
    const after = change(node[property]);
    if (after !== node[property]) {
      node[property] = after;
      changed++;
    }
  }
  for (const [key, value] of Object.entries(node)) {
    // Links and resolved records are other records: their own rows are walked (or not: outside the tree).
    if (key === '_resolved' || key === 'ref') continue;
    if (typeof value === 'object' && value !== null) changed += replaceIn(value, recordType, property, change);
  }
  return changed;
}

export const findAndReplaceJob: JobType = {
  name: 'find_and_replace_job',
  createPermissions: ['manage_repository'],
  cancelPermissions: ['manage_repository'],

  async accept(s, repoId, job) {
    const find = requiredString(job, 'find');
    if (typeof job.replace !== 'string') throw job.replace === undefined || job.replace === null ? errors.propertyMissing('replace') : errors.wrongType('replace', 'string', JSON.stringify(job.replace));
    const recordType = requiredString(job, 'record_type');
    const property = requiredString(job, 'property');
    const baseUri = requiredString(job, 'base_record_uri');
    const type = s.registry.types[recordType];
    if (!type) throw errors.mustBeOneOf('record_type', Object.keys(s.registry.types), recordType);
    if (type.props[property]?.kind !== 'scalar' || property === 'jsonmodel_type' || type.props[property].readOnly) {
      throw errors.invalidParam('property', `${recordType} has no text property ${property} a find and replace may change`);
    }
    pattern(find);
    await recordInRepository(s, repoId, 'base_record_uri', baseUri, 'resource');
    return { jsonmodel_type: 'find_and_replace_job', find, replace: job.replace, record_type: recordType, property, base_record_uri: baseUri };
  },

  async run(ctx) {
    const { find, replace, record_type: recordType, property, base_record_uri: baseUri } = ctx.job as Obj;
    const compiled = pattern(find);
    const modified: string[] = [];
    const lines: string[] = [];
    try {
      // One transaction, as ArchivesSpace's runner: its log lines wait for the commit (on SQLite the
      // store's one connection is this transaction's until then).
      await writeTransaction(ctx.s, async (trx) => {
        // The versions, lookups and links its saves write are held and written a hundred rows to a
        // statement (one round trip per record fewer on MySQL); the job reads none of them back.
        holdDerivedRows(trx);
        for await (const rows of pagesOf(trx, { rootUri: baseUri })) {
          stopIfCanceled(ctx.signal);
          const edits: Array<{ row: (typeof rows)[number]; record: Obj }> = [];
          for (const row of rows) {
            await letEventLoopTurn();
            const record = JSON.parse(row.json) as Obj;
            const changed = replaceIn(record, recordType, property, (text) => replaceAll(text, compiled, replace));
            if (!changed) continue;
            lines.push(`Updating ${row.type}[${row.id}].${property}${recordType === row.type ? '' : ` (${changed} ${recordType})`}`);
            edits.push({ row, record });
            modified.push(row.uri);
          }
          // A page's rows written together; the text changed moves nothing in the tree.
          await saveAllEdited(ctx.s, ctx.actor, trx, edits);
          // Other requests are answered between pages too (on SQLite the store's calls do not wait on I/O).
          await letEventLoopTurn();
        }
      });
    } catch (err) {
      if (err instanceof JobCanceled) {
        await ctx.log('canceled: nothing was changed');
        return 'canceled';
      }
      await ctx.log(`error: ${(err as Error).message}; nothing was changed`);
      return 'failed';
    }
    await ctx.log(lines);
    await ctx.log(modified.length ? `All done, ${modified.length} record(s) modified, logging modified records.` : 'All done, no records modified.');
    await ctx.addRecords(modified);
    return 'completed';
  },
};

