/** GET /reports (the reports and formats a report_job may ask for) and the HTML reports' stylesheet. */
import { errors } from '../errors';
import { Endpoint, json } from '../records/endpoint';
import { customData } from './custom-fields';
import { reportListing } from './index';
import { REPORT_CSS } from './render';

const STATIC_ASSETS: Record<string, { text: string; contentType: string }> = {
  'report.css': { text: REPORT_CSS, contentType: 'text/css; charset=utf-8' },
};

export function reportEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/reports', permission: null, summary: 'List all reports',
      handle: async () => json(reportListing()),
    },
    {
      method: 'get', path: '/reports/custom_data', permission: null, summary: 'Get a list of availiable options for custom reports',
      handle: async () => json(customData()),
    },
    {
      method: 'get', path: '/reports/static/:asset', permission: null, errors: ['NotFound'], produces: 'text/css',
      params: [{ name: 'asset', type: 'string', required: true }], summary: 'Get a static asset for a report',
      handle: async (call) => {
        const asset = STATIC_ASSETS[String(call.params.asset)];
        if (!asset) throw errors.notFound('Asset');
        return { text: asset.text, contentType: asset.contentType };
      },
    },
  ];
}
