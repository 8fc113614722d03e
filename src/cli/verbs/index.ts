import { createUserVerb } from './create-user';
import { doctorVerb } from './doctor';
import { exportVerb } from './export';
import { exportEadVerb } from './export-ead';
import { importVerb } from './import';
import { importFromVerb } from './import-from';
import { importFileVerb } from './import-file';
import { indexerVerb, reindexVerb } from './indexer';
import { migrateVerb } from './migrate';
import { reportVerb } from './report';
import { serveVerb } from './serve';
import type { Verb } from './verb';

/** Every verb of `archive-records`, in the order `--help` lists them. A new verb is one file here and one line in this list. */
export const verbs: Verb[] = [serveVerb, migrateVerb, createUserVerb, reindexVerb, indexerVerb, exportVerb, exportEadVerb, importVerb, importFileVerb, importFromVerb, reportVerb, doctorVerb];
