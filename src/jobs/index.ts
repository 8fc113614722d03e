import type { Services } from '../records/context';
import { JobRunner } from './runner';

export { JobRunner } from './runner';

declare module '../records/context' {
  interface Services {
    /** The background job runner (imports); started unless JOBS=off. */
    jobs?: JobRunner;
  }
}

export function openJobs(s: Services): JobRunner {
  const runner = new JobRunner(s);
  if (s.config.jobs.run) runner.start();
  return runner;
}
