/**
 * Container labels of a resource (`GET /repositories/:repo_id/resource_labels/:id.tsv`): one
 * tab-separated row per top container and series, as ArchivesSpace's labels exporter, for label
 * printing. Components are read a page at a time, as the EAD export reads them.
 */
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';

const HEADERS = [
  'Repository Name', 'Resource Title', 'Resource Identifier', 'Series Archival Object Title', 'Archival Object Title',
  'Container Profile', 'Top Container', 'Top Container Barcode', 'SubContainer 1', 'SubContainer 2', 'Current Location',
];
const RESOLVE = ['top_container', 'top_container::container_profile', 'top_container::container_locations'];

/** A TSV cell: tabs and line breaks would break the row. */
const cell = (v: unknown) => String(v ?? '').replace(/[\t\r\n]+/g, ' ');

export async function writeLabels(s: Services, resource: Obj, repository: Obj, send: (chunk: string) => Promise<void>): Promise<void> {
  const identifier = ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => resource[k]).filter((v) => v !== undefined && v !== null && v !== '').join('-');
  const lead = [repository.name ?? 'Unknown', resource.title, identifier];
  await send(`${HEADERS.join('\t')}\n`);
  const seen = new Set<string>();
  const walk = async (parent: number | null, series: string): Promise<void> => {
    let after: number | undefined;
    for (;;) {
      const q = s.db.knex('records').where({ root_uri: resource.uri, hidden: false });
      if (parent === null) q.whereNull('parent_rid');
      else q.where({ parent_rid: parent });
      if (after !== undefined) q.where('position', '>', after);
      const rows: Array<{ rid: number; json: string; position: number }> = await q.orderBy('position').limit(200).select('rid', 'json', 'position');
      if (!rows.length) return;
      after = Number(rows[rows.length - 1].position);
      const records = rows.map((r) => JSON.parse(r.json) as Obj);
      await resolveLinks(records, RESOLVE, uriLoader(s));
      for (const [i, obj] of records.entries()) {
        let out = '';
        const mySeries = obj.level === 'series' ? String(obj.display_string ?? obj.title ?? '') : series;
        for (const inst of obj.instances ?? []) {
          const sub = inst.sub_container;
          const top = sub?.top_container?._resolved as Obj | undefined;
          if (!top) continue;
          // One row per container and series (a container may serve several series).
          const key = `${mySeries}\u0000${top.uri}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const current = (top.container_locations ?? []).find((l: Obj) => l.status === 'current');
          const level = (n: number) => [sub[`type_${n}`], sub[`indicator_${n}`]].filter((v) => v !== undefined && v !== null && v !== '').join(':');
          const row = [...lead, mySeries, obj.display_string ?? obj.title, top.container_profile?._resolved?.display_string ?? top.container_profile?._resolved?.name ?? '',
            `${top.type ?? ''}: ${top.indicator ?? ''}`, top.barcode ?? '', level(2), level(3), current?._resolved?.title ?? ''];
          out += `${row.map(cell).join('\t')}\n`;
        }
        // A component's rows go before its children's.
        if (out) await send(out);
        await walk(Number(rows[i].rid), mySeries);
      }
      if (rows.length < 200) return;
    }
  };
  await walk(null, '');
}
