/**
 * Reports over what records hold through their trees: the resource instances list (each
 * resource's instances, its components' included, by top container) and the digital object file
 * versions (ArchivesSpace's reports/resources and reports/digital_objects).
 */
import type { Obj } from '../json';
import { jsonOfUris, treeRecordsPage } from '../store/report-reads';
import type { ReportDefinition, RunParams, SubColumn, SubRow } from './definition';
import { INCLUDE_SUPPRESSED } from './common';
import { dateTexts, extentTotals } from './resource-lists';
import { identifier, idOf, labelled, list, plain } from './values';

type Services = Parameters<NonNullable<ReportDefinition['attach']>>[0];

const parse = (rows: Array<{ uri: string; json: string }>) => new Map(rows.map((r) => [r.uri, { ...JSON.parse(r.json), uri: r.uri } as Obj]));
const joinedWith = (sep: string, values: unknown[]) => { const v = values.filter((x) => x !== undefined && x !== null && x !== ''); return v.length ? v.join(sep) : null; };

const TREE_PAGE = 500;

/** Each component of the records' trees, a page at a time (a tree of any size never whole in memory), with the URI of its tree. */
async function eachComponent(s: Services, records: Obj[], run: RunParams, visit: (root: string, component: Obj) => void): Promise<void> {
  let afterRid = 0;
  for (;;) {
    const page = await treeRecordsPage(s.db, { rootUris: records.map((r) => r.uri), afterRid, limit: TREE_PAGE, includeSuppressed: run.includeSuppressed });
    for (const row of page) visit(row.root_uri, { ...JSON.parse(row.json), uri: row.uri });
    if (page.length < TREE_PAGE) return;
    afterRid = page[page.length - 1].rid;
  }
}

/** The file versions of the objects' components (`_componentVersions`): the component's title and its versions' URIs. */
async function attachComponentVersions(s: Services, records: Obj[], run: RunParams): Promise<void> {
  const byRoot = new Map<string, SubRow[]>();
  await eachComponent(s, records, run, (root, c) => {
    const rows = list(c.file_versions).map((fv) => ({ file_uri: plain(fv.file_uri), digital_object_title: null, digital_object_component_title: plain(c.title ?? c.display_string) }));
    if (rows.length) byRoot.set(root, [...(byRoot.get(root) ?? []), ...rows]);
  });
  for (const r of records) r._componentVersions = byRoot.get(r.uri) ?? [];
}

/** A record's instances (a resource's with its components') by top container (digital objects' under one heading), as ArchivesSpace groups them. */
export async function attachInstances(s: Services, records: Obj[], run: RunParams): Promise<void> {
  // Only the instances of each component are kept, read a page of the tree at a time.
  const instances = new Map<string, Obj[]>(records.map((r) => [r.uri, [...list(r.instances)]]));
  await eachComponent(s, records, run, (root, c) => { instances.get(root)?.push(...list(c.instances)); });
  const all = [...instances.values()].flat();
  const tops = parse(await jsonOfUris(s.db, [...new Set(all.map((i) => i.sub_container?.top_container?.ref).filter(Boolean))]));
  const profiles = parse(await jsonOfUris(s.db, [...new Set([...tops.values()].map((t) => t.container_profile?.ref).filter(Boolean))]));
  const digital = parse(await jsonOfUris(s.db, [...new Set(all.map((i) => i.digital_object?.ref).filter(Boolean))]));
  for (const r of records) {
    const groups = new Map<string, { head: SubRow; rows: Map<string, SubRow> }>();
    for (const inst of instances.get(r.uri) ?? []) {
      const sub = inst.sub_container ?? {};
      const top = tops.get(sub.top_container?.ref);
      const key = top ? top.uri : '';
      if (!groups.has(key)) {
        groups.set(key, {
          head: top
            ? { container: joinedWith(' ', [labelled('container_type', top.type), top.indicator]), container_profile: plain(profiles.get(top.container_profile?.ref)?.name) }
            : { container: 'Digital Object Instances', container_profile: null },
          rows: new Map(),
        });
      }
      const object = digital.get(inst.digital_object?.ref);
      const row: SubRow = {
        digital_object: object && (run.includeSuppressed || !object.suppressed) ? plain(object.title) : null,
        instance_type: labelled('instance_instance_type', inst.instance_type),
        is_representative: inst.is_representative === true ? 'Yes' : null,
        container_2: joinedWith(' ', [labelled('container_type', sub.type_2), sub.indicator_2]),
        container_3: joinedWith(' ', [labelled('container_type', sub.type_3), sub.indicator_3]),
      };
      // ArchivesSpace lists each distinct instance once.
      groups.get(key)!.rows.set(JSON.stringify(row), row);
    }
    r._instances = [...groups.values()].map((g) => ({ ...g.head, instances: [...g.rows.values()] }));
  }
}

export const INSTANCE_COLUMNS: SubColumn[] = ['container', 'container_profile', { name: 'instances', sub: ['digital_object', 'instance_type', 'is_representative', 'container_2', 'container_3'] }];

export const resourceInstancesListReport: ReportDefinition = {
  code: 'resource_instances_list_report',
  model: 'ResourceInstancesListReport',
  title: 'Resource Instances List',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['resource'],
  attach: attachInstances,
  async summary(records) {
    const { total_extent, total_count } = await extentTotals(records);
    return { total_count, total_extent };
  },
  columns: [
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'identifier', value: identifier },
    { name: 'level', value: (r) => labelled('archival_record_level', r.level) },
    { name: 'date', value: (r) => dateTexts(list(r.dates)) },
    {
      name: 'instances',
      sub: INSTANCE_COLUMNS,
      value: (r) => list(r._instances) as unknown as SubRow[],
    },
  ],
};

const withUri = (versions: unknown) => list(versions).filter((v) => v.file_uri !== undefined && v.file_uri !== null && v.file_uri !== '');

export const digitalObjectFileVersionsReport: ReportDefinition = {
  code: 'digital_object_file_versions_report',
  model: 'DigitalObjectFileVersionsReport',
  title: 'Digital Object File Versions',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['digital_object'],
  attach: attachComponentVersions,
  // A row per file version with a URI, as ArchivesSpace joins the object to its file versions.
  rowsOf: (r) => withUri(r.file_versions).map((fv) => ({ ...r, _item: fv })),
  async summary(records) {
    let count = 0;
    for await (const r of records) count += withUri(r.file_versions).length;
    return { total_count: count };
  },
  columns: [
    { name: 'digital_object_id', value: (r) => idOf(String(r.uri)) },
    { name: 'digital_object_identifier', value: (r) => plain(r.digital_object_id) },
    { name: 'digital_object_title', value: (r) => plain(r.title) },
    { name: 'digital_object_uri', value: (r) => plain(r._item?.file_uri) },
    {
      name: 'file_versions', sub: ['file_uri', 'digital_object_title', 'digital_object_component_title'],
      value: (r) => [
        ...list(r.file_versions).map((fv) => ({ file_uri: plain(fv.file_uri), digital_object_title: plain(r.title), digital_object_component_title: null })),
        ...(list(r._componentVersions) as unknown as SubRow[]),
      ],
    },
  ],
};
