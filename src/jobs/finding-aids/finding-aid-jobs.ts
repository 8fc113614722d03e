import { errors } from '../../errors';
import type { Obj } from '../../json';
import { exportFilename } from '../../exchange/export/common';
import { writeLabels } from '../../exchange/export/labels';
import { writePdf } from '../../exchange/export/ead';
import { findingAidSources } from '../../exchange/routes/finding-aids';
import { resourceIdentifier } from '../../exchange/routes/formats';
import type { JobContext, JobType } from '../job-type';
import { optionalBoolean, recordInRepository, requiredString } from '../job-records';

/**
 * print_to_pdf_job and container_labels_job (ArchivesSpace's PrintToPDFRunner and
 * ContainerLabelsRunner): the finding-aid PDF, or the container labels, of the resource at
 * `source`, made by the same exporters as GET resource_descriptions/:id.pdf and
 * resource_labels/:id.tsv, kept as the job's output file. They change no record. Any user who may
 * submit jobs in the repository may submit them (ArchivesSpace registers them with no permissions
 * of their own).
 */

async function sources(ctx: JobContext) {
  const row = await recordInRepository(ctx.s, ctx.repoId, 'source', ctx.job.source, 'resource');
  return findingAidSources(ctx.s, ctx.repoId, row.id);
}

/** The whole of what an exporter writes chunk by chunk, as one buffer (an output file is stored whole). */
async function collect(write: (send: (chunk: Buffer | string) => Promise<void>) => Promise<void>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await write(async (chunk) => {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  });
  return Buffer.concat(chunks);
}

async function acceptSource(s: Parameters<JobType['accept']>[0], repoId: number, job: Obj): Promise<string> {
  const source = requiredString(job, 'source');
  await recordInRepository(s, repoId, 'source', source, 'resource');
  return source;
}

export const printToPdfJob: JobType = {
  name: 'print_to_pdf_job',
  createPermissions: [],
  cancelPermissions: [],

  async accept(s, repoId, job) {
    const source = await acceptSource(s, repoId, job);
    return {
      jsonmodel_type: 'print_to_pdf_job', source,
      include_unpublished: optionalBoolean(job, 'include_unpublished'), include_uris: optionalBoolean(job, 'include_uris'),
    };
  },

  async run(ctx) {
    const { resource, repository } = await sources(ctx);
    await ctx.log(`Generating PDF for ${resource.title}`);
    if (resource.publish === false) {
      await ctx.log('-'.repeat(50));
      await ctx.log('Warning: this resource has not been published');
      await ctx.log('-'.repeat(50));
    }
    // ArchivesSpace's job prints with digital objects and without numbered components.
    const options = { includeUnpublished: !!ctx.job.include_unpublished, includeDaos: true, includeUris: !!ctx.job.include_uris, numberedCs: false };
    const pdf = await collect((send) => writePdf(ctx.s, send, resource, repository, options));
    if (ctx.signal.aborted) return 'canceled';
    const filename = exportFilename(resourceIdentifier(resource), '_ead.pdf');
    await ctx.addOutputFile(filename, pdf);
    await ctx.log(`File generated: ${filename}`);
    await ctx.log('All done. Please click refresh to view your download link.');
    return 'completed';
  },
};

export const containerLabelsJob: JobType = {
  name: 'container_labels_job',
  createPermissions: [],
  cancelPermissions: [],

  async accept(s, repoId, job) {
    const source = await acceptSource(s, repoId, job);
    // ArchivesSpace's one format (its schema's default); any other is refused rather than ignored.
    const format = job.format === undefined || job.format === null ? 'tsv' : job.format;
    if (format !== 'tsv') throw errors.mustBeOneOf('format', ['tsv'], String(format));
    return { jsonmodel_type: 'container_labels_job', source, format };
  },

  async run(ctx) {
    const { resource, repository } = await sources(ctx);
    await ctx.log(`Generating Container Labels ${resource.title}`);
    const tsv = await collect((send) => writeLabels(ctx.s, resource, repository, send));
    if (ctx.signal.aborted) return 'canceled';
    const filename = exportFilename(resourceIdentifier(resource), '_labels.tsv');
    await ctx.addOutputFile(filename, tsv);
    await ctx.log(`File generated: ${filename}`);
    return 'completed';
  },
};
