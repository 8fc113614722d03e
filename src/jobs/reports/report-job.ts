import { PassThrough } from 'node:stream';
import { can } from '../../access/permissions';
import { checkReportJob } from '../../reports';
import { renderReport } from '../../reports/render';
import type { JobType } from '../job-type';

/**
 * report_job: a report rendered in the runner, off the request path, into the job's output file
 * as it is produced (the file is written while the report reads its pages). ArchivesSpace asks
 * no permission of its own beyond create_job to submit one.
 */
export const reportJob: JobType = {
  name: 'report_job',
  createPermissions: [],
  cancelPermissions: [],

  async accept(s, repoId, job) {
    const { report, format, values } = checkReportJob(job);
    // A report shaped by stored records (a custom report's template) is checked against them now: a bad one is a 400, not a failed job.
    if (report.prepare) await report.prepare(s, repoId, values);
    const params = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
    return { jsonmodel_type: 'report_job', report_type: report.code, format, ...(Object.keys(params).length ? { job_params: JSON.stringify(params) } : {}) };
  },

  async run(ctx) {
    const { report, format, values } = checkReportJob(ctx.job);
    // Suppressed records only for an owner who may see them, whatever was asked (as ArchivesSpace).
    const includeSuppressed = values.include_suppressed === true && await can(ctx.s, ctx.actor, 'view_suppressed', ctx.repoId);
    await ctx.log(`started: ${report.title} (${format})`);
    const out = new PassThrough();
    const write = (chunk: string | Buffer) => new Promise<void>((resolve, reject) => {
      if (out.destroyed) reject(new Error('the output file was closed'));
      else if (out.write(chunk)) resolve();
      else out.once('drain', resolve);
    });
    const rendered = renderReport(report, { s: ctx.s, repoId: ctx.repoId, format, includeSuppressed, values }, write, ctx.signal)
      .then(() => { out.end(); }, (err) => { out.destroy(err); throw err; });
    await Promise.all([rendered, ctx.addOutputFile(`${report.code}.${format}`, out)]);
    await ctx.log('report file added');
    return ctx.signal.aborted ? 'canceled' : 'completed';
  },
};
