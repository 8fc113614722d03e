import type { Registry } from '../registry';
import { accessEndpoints } from './access';
import { findByIdEndpoints, recordEndpoints } from './records';
import { systemEndpoints } from './system';
import { treeEndpoints } from './trees';
import { containerEndpoints } from './containers';
import { enumerationEndpoints } from './enumerations';
import { searchEndpoints } from './search';
import { healthEndpoints } from './health';
import { formatEndpoints } from './formats';
import { oaiEndpoints } from './oai';
import { findingAidEndpoints } from './finding-aids';
import { mergeEndpoints } from './merges';
import { schemaEndpoints } from './schemas';
import { feedEndpoints } from './feeds';
import { jobEndpoints } from './jobs';
import { preferenceEndpoints } from './preferences';
import { repositorySettingEndpoints } from './repository-settings';
import { repositoryEndpoints } from './repositories';
import { monitoringEndpoints } from './monitoring';
import type { Endpoint } from './types';
import { termEndpoints } from './terms';
import { slugEndpoints } from './slugs';

export function endpointTable(registry: Registry): Endpoint[] {
  return [...systemEndpoints(), ...accessEndpoints(), ...enumerationEndpoints(), ...searchEndpoints(), ...healthEndpoints(), ...formatEndpoints(registry), ...findingAidEndpoints(), ...mergeEndpoints(registry), ...schemaEndpoints(), ...termEndpoints(), ...slugEndpoints(), ...feedEndpoints(), ...jobEndpoints(), ...preferenceEndpoints(), ...repositorySettingEndpoints(), ...repositoryEndpoints(), ...monitoringEndpoints(registry), ...oaiEndpoints(), ...treeEndpoints(registry), ...containerEndpoints(registry), ...findByIdEndpoints(registry), ...recordEndpoints(registry)];
}
