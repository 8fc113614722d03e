import type { JobType } from '../job-type';

/**
 * generate_arks_job (ArchivesSpace's GenerateArksRunner) mints an ARK for each resource and
 * archival object that lacks one, when the installation mints ARKs (`arks_enabled`, off by default
 * in ArchivesSpace, and then the job writes nothing). This server mints none: it keeps the ARKs a
 * client asserts through POST .../ark_name and exports them. So the job is accepted with
 * ArchivesSpace's permissions, writes nothing, and its log says why.
 */
export const generateArksJob: JobType = {
  name: 'generate_arks_job',
  createPermissions: ['administer_system'],
  cancelPermissions: ['administer_system'],

  accept() {
    return { jsonmodel_type: 'generate_arks_job' };
  },

  async run(ctx) {
    await ctx.log('ARK minting is not enabled on this server (ArchivesSpace\'s arks_enabled, off by default): no ARK was generated. ARKs asserted through POST .../ark_name are kept and exported.');
    return 'completed';
  },
};
