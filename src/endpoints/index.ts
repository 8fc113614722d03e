import type { Registry } from '../registry';
import { recordEndpoints } from './records';
import { systemEndpoints } from './system';
import type { Endpoint } from './types';

export function endpointTable(registry: Registry): Endpoint[] {
  return [...systemEndpoints(), ...recordEndpoints(registry)];
}
