import type XArchiveSchema from './x-archive.schema.json';

/** Shape of generated/registry.json: what the app knows of every jsonmodel_type. */

/** The id of the hidden global repository that holds installation-wide groups and grants (auth-and-permissions.md section 7). */
export const GLOBAL_REPO_ID = 1;

/** The type a `:repo_id` in a URI names: every repository-scoped record lives in one. */
export const REPOSITORY_TYPE = 'repository';

export type PropKind = 'scalar' | 'subrecord' | 'link' | 'ref' | 'inline';

export interface PropInfo {
  kind: PropKind;
  array?: boolean;
  /** Allowed embedded types, first one assumed when jsonmodel_type is absent. */
  subrecords?: string[];
  /** Target types of a reference (kind ref, link, or a subrecord position that also takes a uri). */
  refs?: string[];
  readOnly?: boolean;
  default?: unknown;
  /** Absence gives the warning "Property was missing", not an error. */
  warnIfMissing?: boolean;
  /** Name of the editable value list a string must belong to. */
  enumName?: string;
  /** Members of link objects (besides ref) and of inline objects. */
  props?: Record<string, PropInfo>;
}

export interface UniqueRule {
  fields: string[];
  within: 'repository' | 'global' | string;
  errorPath: string;
  message: string;
  conflictingRecord?: boolean;
  caseInsensitive?: boolean;
}

export interface LookupRule {
  fields: string[];
  /** false: kept for other lookups (the slug route), not a find_by_id parameter. */
  findById?: boolean;
  format?: 'identifier-json';
}

export interface Permissions {
  read: string | null;
  create: string | null;
  update: string | null;
  delete: string | null;
}

/** A type whose records hang in a tree under a root record (archival objects under a resource). */
export interface TreeRole {
  root: string;
  /** The link property naming the root record. */
  rootProperty: string;
  /** The link property naming the parent node (absent at the top level). */
  parentProperty: string;
  /** The body type of the batch-create route ({"children": [...]}). */
  childrenBody: string;
  /**
   * POST /repositories/:repo_id/<route>?target_<root>=…&component=…: a node and its subtree move
   * to the end of another root's top level (ArchivesSpace's component transfer), with an event of
   * `event.event_type` (a record of type `event.type`) linking the old root, the new one and the node.
   */
  transfer?: { route: string; permission: string; event?: { type: string; event_type: string } };
  /**
   * What the tree views (tree/root, tree/node, waypoints) show of the root and of each node
   * besides the common fields, in order, from the parts src/records/trees/views.ts knows.
   * Absent: the archival shape (root: level, four_part_id, containers; node: component_id, level, containers).
   */
  view?: { root?: TreeViewPart[]; node?: TreeViewPart[] };
}

/** A piece of a tree view entry: `component_id` and `four_part_id` both fill `identifier`. */
export type TreeViewPart = 'component_id' | 'identifier' | 'four_part_id' | 'level' | 'containers' | 'label' | 'file_uri_summary' | 'digital_object_type';

export interface TypeInfo {
  name: string;
  kind: 'record' | 'subrecord' | 'query' | 'external';
  uri?: string;
  scope?: 'repository' | 'global';
  /** Last segment of the URI template (accessions, subjects, ...). */
  plural?: string;
  model: string;
  routes?: boolean;
  listing?: 'paginated' | 'unlimited';
  permissions?: Permissions;
  unique?: UniqueRule[];
  lookup?: Record<string, LookupRule>;
  validations?: string[];
  requiresRef?: boolean;
  tree?: TreeRole;
  /** Action routes that set a flag on the record and its tree: suppressed, publish, unpublish. */
  flagRoutes?: Array<'suppressed' | 'publish' | 'unpublish'>;
  /** Deleting a record of this type that others still link to is refused (409) with this message. */
  refuseDeleteIfLinked?: string;
  /** A record whose property of this name is true is the system's own and cannot be deleted (403: the ArchivesSpace software agent). */
  deleteDeniedWhen?: string;
  /** Deleting a record linked from a record of one of these types is refused (409) with that type's message (an agent that represents a repository). */
  refuseDeleteIfLinkedFrom?: Record<string, string>;
  /** A repository-scoped type that may also live in the global repository (groups). */
  allowInGlobalRepository?: boolean;
  /** Server-generated fields: field → a derivation of src/records/generated.ts, computed on every save. */
  generated?: Record<string, string>;
  /**
   * Records of this type can be merged: POST /merge_requests/<route> (ArchivesSpace's paths; one
   * route may serve several types, the agents), needing `permission`.
   */
  merge?: {
    route: string;
    permission: string;
    /**
     * POST /merge_requests/<route>_detail as well (ArchivesSpace's agent_detail): subrecords and
     * fields of the first candidate chosen into the destination. `oneOf`: per subrecord list, flags
     * only one item may hold (a subrecord appended drops them, one replacing keeps the destination's);
     * `appendedByIndex`: lists whose chosen item is the candidate's at the selection's own index
     * and is always appended (notes).
     */
    detail?: { oneOf?: Record<string, string[]>; appendedByIndex?: string[] };
  };
  /**
   * Read-only properties with routes of their own, each with the permission both need:
   * GET <uri>/:id/<property> answers the property (null when absent), POST sets it from a body of
   * the property's type (ArchivesSpace's ark_name routes).
   */
  propertyRoutes?: Record<string, string>;
  /**
   * Properties only callers holding the permission see and set (an agent's contacts): others read
   * them emptied and cannot send them (a create with a value is refused, an update keeps the stored
   * value); search documents never hold them.
   */
  guardedProperties?: Record<string, string>;
  /**
   * GET /slug?slug=&controller=&action= finds records of this type by their `slug` (the public
   * interface's human-readable URLs): the controller (and action) of the public interface that
   * serves the type. Needs the `slug` lookup.
   */
  slugRoute?: { controller: string; action?: string };
  /**
   * A change to a record of this type is announced on GET /notifications with this code (the
   * staff interface refreshes its lists: REPOSITORY_CHANGED, REFRESH_ACLS, REFRESH_PREFERENCES...).
   */
  notification?: string;
  /** How records of this type move between repositories (src/records/transfer.ts). */
  transfer?: RepositoryTransfer;
  /** false: `import-from` leaves records of this type alone (an installation's own settings, such as its OAI-PMH configuration). */
  copied?: boolean;
  /** The named domain hooks of this type (src/services.ts NAMED_HOOKS): rules that are code. */
  hooks?: string;
  /**
   * Records of this type are collections that hold top containers through their instances (and
   * their tree's nodes'): they show in a container's `collection` and answer GET …/:id/top_containers.
   */
  containerCollection?: boolean;
  /**
   * What a change to a record of this type touches (ArchivesSpace's touch_records): a create,
   * update, move, publish, suppress or delete gives the records these paths lead to a new
   * system_mtime (not a new lock_version) and a change-log entry, so harvesters asking what changed
   * since (modified_since, OAI-PMH from) see the collection. Each path is a list of steps from the
   * changed record: `root` (its tree's root record), `linkedFrom:<type>` (the records of that type
   * that link to it). src/store/touches.ts follows them.
   */
  touches?: string[][];
  /** How records of this type become search documents; absent: the type is not searched. */
  search?: SearchMapping;
  /**
   * Per-format export mappings (`x-archive.export.<format>`): record fields to elements, read by
   * the exporters in src/exchange/export/ and by OAI-PMH, so a type dropped in with a mapping is
   * exported without code. Each exporter documents the shape of its own block.
   */
  export?: Record<string, unknown>;
  /** Regular expression (source) matching a URI of this type. */
  uriPattern?: string;
  props: Record<string, PropInfo>;
}

export interface Manifest {
  types: Record<string, TypeInfo>;
  /**
   * Each type's JSON Schema as the loader sees it (system properties added, `$schema`, `$id` and
   * the digested x-archive block left out), for describing the API (src/openapi).
   */
  schemas?: Record<string, Record<string, unknown>>;
}

/** The search mapping of a type (x-archive.search): what src/search/documents.ts builds a document from. */
/** A value taken from the record: a path, a join, a template, the first non-empty of several, a transform. */
export type FieldSpec =
  | string
  | { path: string; join?: string; transform?: 'year' | 'exists' | 'missing' | 'squash' | 'lower' }
  | { paths: string[]; join: string }
  | { template: string; transform?: 'squash' | 'lower' }
  | { first: FieldSpec[] };

export interface SearchMapping {
  title?: FieldSpec;
  /** Defaults to the title, cleaned as the reference cleans title_sort. */
  titleSort?: FieldSpec;
  identifier?: FieldSpec;
  /** Links to resolve before the document is built (resolve[] syntax). */
  resolve?: string[];
  /** Per-type fields; a one-element array marks the field multi-valued. */
  fields?: Record<string, FieldSpec | [FieldSpec]>;
  /** Aggregate types the document also answers to (`agent` for every agent type). */
  types?: string[];
  /**
   * Types a published document also answers to, for the public interface (search.md (f)).
   * Default: `pui_<type>` and `pui`; `[]` keeps the type out of the public user's searches.
   */
  publicTypes?: string[];
  /** Rank of this type in searches without a sort (higher first; default 0), as the reference's boosts. */
  boost?: number;
  /**
   * The document carries data of the records that link to it (a top container shows the
   * collections whose instances hold it): a change to a linking record re-indexes it too.
   */
  dependsOnReferrers?: boolean;
}


/** x-archive.transfer: a type's part in moving records to another repository. */
export interface RepositoryTransfer {
  /**
   * POST <uri>/:id/transfer?target_repo=<repository URI>: a record moves on its own, its tree with
   * it, and the caller needs the type's update permission in both repositories.
   */
  route?: boolean;
  /** The event made in the target repository for each transfer by the route, linking the record (role `transfer`). */
  event?: { type: string; event_type: string };
  /**
   * Moves along with the records that link to it when no record left behind links to it; else the
   * transfer is refused (409) with this message under its URI.
   */
  withLinkingRecords?: string;
  /**
   * Moves along with the records it links to when it links to no record left behind; else a copy
   * of it linking only the moved records is made in the target repository and the original loses those links.
   */
  withLinkedRecords?: boolean;
  /** Stays when a whole repository's records are transferred: the repository's own access and settings. */
  stays?: boolean;
}

/**
 * The keys x-archive.schema.json lets a schema's block hold are exactly the TypeInfo fields it
 * copies (besides those generate.ts derives): a key declared there that no TypeInfo field carries,
 * or a new TypeInfo field the schema does not admit, fails `tsc` here.
 */
type DeclaredKeys = keyof (typeof XArchiveSchema)['properties'];
type DerivedKeys = 'name' | 'plural' | 'uriPattern' | 'props';
type KeysAgree = [Exclude<DeclaredKeys, keyof TypeInfo>, Exclude<keyof TypeInfo, DeclaredKeys | DerivedKeys>] extends [never, never] ? true : false;
export const X_ARCHIVE_KEYS_AGREE: KeysAgree = true;
