import type { Command } from 'commander';

/** One verb of `archive-records`: adds its command, options and action to the program. */
export interface Verb {
  name: string;
  register(program: Command): void;
}
