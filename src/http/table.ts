import type { Registry } from '../registry';
import { accessEndpoints } from '../domain/users/routes';
import { findByIdEndpoints, recordEndpoints } from '../records/routes/records';
import { systemEndpoints } from '../domain/system/routes';
import { sessionEndpoints } from '../domain/users/session-routes';
import { treeEndpoints } from '../records/routes/trees';
import { containerEndpoints } from '../domain/containers/routes';
import { enumerationEndpoints } from '../records/routes/value-lists';
import { searchEndpoints } from '../search/routes';
import { healthEndpoints } from '../domain/system/health-routes';
import { formatEndpoints } from '../exchange/routes/formats';
import { oaiEndpoints } from '../exchange/routes/oai';
import { findingAidEndpoints } from '../exchange/routes/finding-aids';
import { mergeEndpoints } from '../records/routes/merges';
import { subrecordEndpoints } from '../records/routes/subrecords';
import { historyEndpoints } from '../records/routes/history';
import { schemaEndpoints } from '../records/routes/schemas';
import { feedEndpoints } from '../domain/system/feed-routes';
import { jobEndpoints } from '../jobs/routes';
import { spreadsheetEndpoints } from '../jobs/spreadsheets/routes';
import { reportEndpoints } from '../reports/routes';
import { preferenceEndpoints } from '../domain/users/preference-routes';
import { repositorySettingEndpoints } from '../domain/repositories/settings-routes';
import { repositoryEndpoints } from '../domain/repositories/routes';
import { monitoringEndpoints } from '../domain/system/monitoring-routes';
import type { Endpoint } from '../records/endpoint';
import { termEndpoints } from '../domain/vocabularies/routes';
import { slugEndpoints } from '../domain/system/slug-routes';
import { webhookEndpoints } from '../domain/webhooks/routes';

/**
 * The endpoint table: every area's rows, in the order they are matched (a fixed path before a
 * parameter that would also match it; the generic record rows last).
 */
export function endpointTable(registry: Registry): Endpoint[] {
  return [...systemEndpoints(), ...sessionEndpoints(), ...accessEndpoints(), ...enumerationEndpoints(), ...searchEndpoints(), ...healthEndpoints(), ...formatEndpoints(registry), ...findingAidEndpoints(), ...mergeEndpoints(registry), ...schemaEndpoints(), ...termEndpoints(), ...slugEndpoints(), ...feedEndpoints(), ...jobEndpoints(), ...spreadsheetEndpoints(), ...reportEndpoints(), ...webhookEndpoints(), ...preferenceEndpoints(), ...repositorySettingEndpoints(), ...repositoryEndpoints(), ...monitoringEndpoints(registry), ...oaiEndpoints(), ...treeEndpoints(registry), ...containerEndpoints(registry), ...findByIdEndpoints(registry), ...subrecordEndpoints(registry), ...historyEndpoints(registry), ...recordEndpoints(registry)];
}
