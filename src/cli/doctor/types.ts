import type { Config } from '../../config';
import type { Registry } from '../../registry';
import type { Database } from '../../store/connect';

export type Status = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: Status;
  /** One line: what was found. */
  summary: string;
  details?: unknown;
  /** What to do about a warn or fail. */
  fix?: string;
}

export interface DoctorContext {
  config: Config;
  registry: Registry;
  /** Absent when the store could not be reached: checks that need it skip themselves. */
  db?: Database;
  /** The store is migrated (its tables exist): checks that read them skip themselves otherwise. */
  migrated: boolean;
}

/** One check of `archive-records doctor`. It reads, never writes. */
export interface DoctorCheck {
  name: string;
  run(ctx: DoctorContext): Promise<CheckResult>;
}
