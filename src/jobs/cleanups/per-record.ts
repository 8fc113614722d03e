import type { Obj } from '../../json';
import { RecordQueries } from '../../store/records';
import type { JobContext } from '../job-type';
import { type JobScope, pagesOf, saveEdited } from '../job-records';
import { letEventLoopTurn } from '../../event-loop';
import { writeTransaction } from '../../records/context';

/**
 * The clean-ups ArchivesSpace commits record by record (trim_whitespace_job, ns2_remover_job):
 * each record of `scope` that `edit` changes (it edits the parsed JSON in place and answers how
 * many of its parts changed) is saved in a transaction of its own, read again there so that a
 * save made meanwhile is built on, not undone. A cancel stops between records: those saved stay.
 * `dryRun` changes nothing and only counts.
 */
export async function editEach(ctx: JobContext, scope: JobScope, edit: (record: Obj) => number, dryRun = false): Promise<{ uris: string[]; parts: number }> {
  const uris: string[] = [];
  let parts = 0;
  let seen = 0;
  for await (const rows of pagesOf(ctx.s.db, scope)) {
    seen += rows.length;
    await ctx.progress(seen);
    for (const row of rows) {
      await letEventLoopTurn();
      if (ctx.signal.aborted) return { uris, parts };
      const changed = edit(JSON.parse(row.json) as Obj);
      if (!changed) continue;
      if (!dryRun) {
        const saved = await writeTransaction(ctx.s, async (trx) => {
          const current = await new RecordQueries(trx).get(row.type, row.id, true);
          if (!current || current.suppressed) return false;
          const record = JSON.parse(current.json) as Obj;
          if (!edit(record)) return false;
          await saveEdited(ctx.s, ctx.actor, trx, current, record);
          return true;
        });
        if (!saved) continue;
      }
      parts += changed;
      uris.push(row.uri);
    }
  }
  return { uris, parts };
}
