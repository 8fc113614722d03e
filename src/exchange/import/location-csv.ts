/**
 * Location CSV import (`location_csv`): ArchivesSpace's location template (its LocationConverter),
 * one location per row: location_building, _floor, _room, _area, _barcode, _classification,
 * _coordinate_{1,2,3}_label, _coordinate_{1,2,3}_indicator, _temporary → the location's field of
 * that name. Locations are global records: the job's repository does not own them.
 */
import { templateCsvImporter } from './csv-template';

const FIELDS = ['building', 'floor', 'room', 'area', 'barcode', 'classification',
  ...[1, 2, 3].flatMap((n) => [`coordinate_${n}_label`, `coordinate_${n}_indicator`]), 'temporary'];

export const locationCsvImporter = templateCsvImporter({
  type: 'location_csv',
  label: 'Import Location records from a CSV file',
  recordType: 'location',
  columns: Object.fromEntries(FIELDS.map((f) => [`location_${f}`, ['location', f]])),
  partTypes: { location: 'location' },
  build: (parts) => parts.location ?? {},
});
