/**
 * Container labels of a resource (`GET /repositories/:repo_id/resource_labels/:id.tsv`): one
 * tab-separated row per top container and series, as ArchivesSpace's labels exporter, for label
 * printing. Components come from the finding aids' walker (ead/walker.ts), suppressed and
 * unpublished ones included.
 */
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { type ArchivalObject, containedInstances, type Repository, type Resource } from './ead/parts';
import { walkComponents } from './ead/walker';

const HEADERS = [
  'Repository Name', 'Resource Title', 'Resource Identifier', 'Series Archival Object Title', 'Archival Object Title',
  'Container Profile', 'Top Container', 'Top Container Barcode', 'SubContainer 1', 'SubContainer 2', 'Current Location',
];
const RESOLVE = ['top_container', 'top_container::container_profile', 'top_container::container_locations'];

/** A TSV cell: tabs and line breaks would break the row. */
const cell = (v: unknown) => String(v ?? '').replace(/[\t\r\n]+/g, ' ');

export async function writeLabels(s: Services, record: Obj, repo: Obj, send: (chunk: string) => Promise<void>): Promise<void> {
  const [resource, repository] = [record as Resource, repo as Repository];
  const identifier = [resource.id_0, resource.id_1, resource.id_2, resource.id_3].filter((v) => v !== undefined && v !== null && v !== '').join('-');
  const lead = [repository.name ?? 'Unknown', resource.title, identifier];
  await send(`${HEADERS.join('\t')}\n`);
  const seen = new Set<string>();
  /** The series each open component belongs to, the innermost last. */
  const series: string[] = [''];
  await walkComponents(s, resource.uri!, { resolve: RESOLVE, keep: () => true }, {
    enter: async ({ record }) => {
      const obj = record as ArchivalObject;
      let out = '';
      const mySeries = obj.level === 'series' ? String(obj.display_string ?? obj.title ?? '') : series[series.length - 1];
      series.push(mySeries);
      for (const { sub, top } of containedInstances(obj)) {
        // One row per container and series (a container may serve several series).
        const key = `${mySeries}\u0000${top.uri}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const current = (top.container_locations ?? []).find((l) => l.status === 'current');
        const level = (...parts: Array<string | undefined>) => parts.filter((v) => v !== undefined && v !== null && v !== '').join(':');
        const row = [...lead, mySeries, obj.display_string ?? obj.title, top.container_profile?._resolved?.display_string ?? top.container_profile?._resolved?.name ?? '',
          `${top.type ?? ''}: ${top.indicator ?? ''}`, top.barcode ?? '', level(sub.type_2, sub.indicator_2), level(sub.type_3, sub.indicator_3), current?._resolved?.title ?? ''];
        out += `${row.map(cell).join('\t')}\n`;
      }
      // A component's rows go before its children's.
      if (out) await send(out);
    },
    leave: () => void series.pop(),
  });
}
