import { eadImporter } from './ead';
import { marcxmlAccessionImporter, marcxmlImporter, marcxmlSubjectsAndAgentsImporter } from './marcxml';
import { eacImporter } from './eac';
import { accessionCsvImporter } from './accession-csv';
import { locationCsvImporter } from './location-csv';
import { subjectCsvImporter } from './subject-csv';
import { digitalObjectCsvImporter } from './digital-object-csv';
import { assessmentCsvImporter } from './assessment-csv';
import { marcxmlAuthAgentImporter } from './marcxml-auth';
import type { Importer } from './types';

/** Every import type, by its `import_type` name. Each importer adds its own line. */
export const importers: Record<string, Importer> = {
  [eadImporter.type]: eadImporter,
  [marcxmlImporter.type]: marcxmlImporter,
  [marcxmlSubjectsAndAgentsImporter.type]: marcxmlSubjectsAndAgentsImporter,
  [marcxmlAccessionImporter.type]: marcxmlAccessionImporter,
  [eacImporter.type]: eacImporter,
  [accessionCsvImporter.type]: accessionCsvImporter,
  [locationCsvImporter.type]: locationCsvImporter,
  [subjectCsvImporter.type]: subjectCsvImporter,
  [digitalObjectCsvImporter.type]: digitalObjectCsvImporter,
  [assessmentCsvImporter.type]: assessmentCsvImporter,
  [marcxmlAuthAgentImporter.type]: marcxmlAuthAgentImporter,
};

export * from './types';
