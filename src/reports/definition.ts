/**
 * What a report is: a declarative definition read by the one engine (engine.ts) and rendered by
 * the one set of renderers (render.ts). A definition names the records it walks, the linked
 * records each page resolves, and its columns in ArchivesSpace's order; it holds no SQL and no
 * per-format code. Adding a report is adding a definition to a file of this folder and listing it
 * in index.ts.
 */
import type { Obj } from '../json';
import type { Services } from '../records/context';

export const REPORT_FORMATS = ['json', 'csv', 'html', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export type Scalar = string | number | null;
/** A row of a sub-report: its columns in order (a cell may be a sub-report of its own, as the shelflist's containers). */
export interface SubRow { [column: string]: Scalar | SubRow[] }
/** A sub-report's column: a name, or a nested sub-report's name and columns. */
export type SubColumn = string | { name: string; sub: SubColumn[] };
/** A report cell: a value, or a sub-report's rows (null when it has none, as ArchivesSpace answers). */
export type Cell = Scalar | SubRow[];
export type Row = Record<string, Cell>;

/** A parameter as GET /reports describes it: [name, ArchivesSpace's input kind, label]. */
export interface ReportParam {
  name: string;
  /**
   * Date and Boolean as their names say; LocationList: `location_start` / `location_end` ({ref}),
   * `building` or `repository_uri`; Rating: an attribute definition's id; RatingValues: the
   * `value_N: "on"` ArchivesSpace's form sends; CustomReportTemplate: a template's id.
   */
  kind: 'IncludeSuppressed' | 'Date' | 'Boolean' | 'LocationList' | 'Rating' | 'RatingValues' | 'CustomReportTemplate';
  label: string;
}

export type ParamValue = string | boolean | number | Obj | undefined;

/** A run's parameters, checked (params.ts). */
export interface RunParams {
  s: Services;
  repoId: number;
  format: ReportFormat;
  includeSuppressed: boolean;
  values: Record<string, ParamValue>;
}

export interface Column {
  name: string;
  value(record: Obj, run: RunParams): Cell | undefined;
  /** A sub-report's columns, in order (CSV spreads them over columns of their own). */
  sub?: SubColumn[];
  /** Only in these formats (ArchivesSpace shows some columns in its data formats only). */
  formats?: ReportFormat[];
}

/** Records of other types that link to each record, attached to it as `_linkedBy[as]`. */
export interface LinkedBy {
  as: string;
  types: string[];
}

export interface ReportDefinition {
  /** The report_type (ArchivesSpace's code). */
  code: string;
  /** ArchivesSpace's class name, as GET /reports shows it. */
  model: string;
  title: string;
  params: ReportParam[];
  /** Checks the parameters together when the job is submitted (throws a 400). */
  check?(values: RunParams['values']): void;
  /**
   * The definition to run, where it depends on stored records (the custom report's template, the
   * repository's assessment attributes): made when the job is submitted (its errors a 400) and
   * again when it runs (its errors fail the job).
   */
  prepare?(s: Services, repoId: number, values: RunParams['values']): Promise<ReportDefinition>;
  /** A repository's records, or every repository's (locations, agents, subjects, users). */
  scope: 'repository' | 'global';
  /** The record types walked, one after the other, each in id order (ArchivesSpace's tables' order) or `order`'s. */
  types: string[];
  /** Top-level properties of the records' JSON they are walked in the order of (as text; then the order stored). */
  order?: string[];
  /** At most this many rows (the custom report's template's limit). */
  limit?: number;
  /** Several rows of a record (a digital object's file versions): each is the record with `_item` set. */
  rowsOf?(record: Obj, run: RunParams): Obj[];
  /** The rows (each record's, or `rowsOf`'s) in this order over the whole report, not the walk's (the custom report of subrecords sorted by a field). */
  rowOrder?(a: Obj, b: Obj): number;
  /** Links each page follows, in order: paths to `ref`s, arrays crossed (`instances.sub_container.top_container.ref`); a later path may go through an earlier one's `_resolved`. */
  resolve?: string[];
  linkedBy?: LinkedBy[];
  /** Anything else a page needs that links and linkers do not give (through named store reads). */
  attach?(s: Services, records: Obj[], run: RunParams): Promise<void>;
  /** Only the records for which this holds. */
  where?(record: Obj, run: RunParams): boolean;
  /** Totals ArchivesSpace puts in a report's info, over the report's records (read once more, ahead of the rows). */
  summary?(records: AsyncIterable<Obj>, run: RunParams): Promise<Record<string, string | number | null>>;
  /** The info key that counts the records walked (number_of_accessions). */
  countAs?: string;
  /** ArchivesSpace names the repository in a report's info; its global user report does not. */
  noRepositoryInfo?: boolean;
  columns: Column[];
}
