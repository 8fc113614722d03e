import type { JobType } from '../job-type';
import { requiredString } from '../job-records';

/**
 * container_conversion_job: ArchivesSpace's record of the one-time conversion of its old container
 * model (containers held inside instances) to top containers and sub containers. Its runner was
 * hidden and did nothing (the conversion ran as a migration), and the old model is gone from
 * ArchivesSpace and was never in this one: every instance here already links a top container. So
 * the job is accepted as ArchivesSpace's schema has it (a `format`), changes nothing, and says so.
 */
export const containerConversionJob: JobType = {
  name: 'container_conversion_job',
  hidden: true,
  createPermissions: ['administer_system'],
  cancelPermissions: ['administer_system'],

  accept(_s, _repoId, job) {
    return { jsonmodel_type: 'container_conversion_job', format: requiredString(job, 'format') };
  },

  async run(ctx) {
    await ctx.log('Nothing to convert: every container here is a top container with its sub containers already (the old container model, which this job converted, is not part of this record model).');
    return 'completed';
  },
};
