/** What administrators and the staff interface watch: system information, events and log, active edits, a record's graph. */
import fs from 'node:fs';
import path from 'node:path';
import { recentLog } from '../../log';
import { modelsInGraph, systemInfo, updateActiveEdits } from './monitoring';
import { systemEvents } from '../../records/system-events';
import { readsOf } from '../../store/database';
import { projectRoot, Registry } from '../../registry';
import { Endpoint, json } from '../../records/endpoint';

const version = (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

export function monitoringEndpoints(registry: Registry): Endpoint[] {
  const graphs = Object.values(registry.types)
    .filter((t) => t.uri && t.scope === 'repository' && (t.tree || Object.values(registry.types).some((n) => n.tree?.root === t.name)))
    .map((type): Endpoint => ({
      method: 'get', path: `${type.uri}/:id/models_in_graph`, permission: 'view_repository', errors: ['NotFound'],
      params: [{ name: 'id', type: 'integer', required: true }],
      summary: `The record types in a ${type.name}'s graph (itself, its subrecords and the tree below it)`,
      handle: async (call) => json(await modelsInGraph(call.s, type.name, call.repoId!, call.params.id)),
    }));
  return [
    {
      method: 'get', path: '/system/info', permission: 'administer_system', summary: 'Diagnostic information about the system',
      handle: async (call) => json(await systemInfo(call.s, `archive-records-backend ${version}`)),
    },
    {
      method: 'get', path: '/system/log', permission: 'administer_system', produces: 'text/plain',
      summary: "This process's recent log lines (JSON lines, request lines left out)",
      handle: async () => ({ text: recentLog(), contentType: 'text/plain; charset=utf-8' }),
    },
    {
      method: 'get', path: '/system/events', permission: 'administer_system',
      summary: 'The system events logged for this installation (migrations applied, keys derived again after their rules changed), oldest first',
      handle: async (call) => json(await systemEvents(readsOf(call.s.db))),
    },
    {
      method: 'post', path: '/update_monitor', permission: 'mediate_edits', rawJsonBody: true,
      summary: 'Report the records open in editors; answers who edits what and each record\'s lock_version',
      handle: async (call) => json(await updateActiveEdits(call.s, call.rawBody)),
    },
    ...graphs,
  ];
}
