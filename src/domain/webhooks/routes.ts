/**
 * The webhook routes: subscriptions created, listed, read, updated and deleted, a test ping
 * queued, recent deliveries listed. Administrators only (administer_system).
 */
import { PAGE_SIZE_PARAM, pageSize } from '../../records/paging';
import { type Endpoint, json } from '../../records/endpoint';
import { changeSubscription, createSubscription, getSubscription, listDeliveries, listSubscriptions, queuePing, removeSubscription } from './subscriptions';

const base = '/webhooks/subscriptions';
const id = { name: 'id', type: 'integer', required: true } as const;
const page = { name: 'page', type: 'integer', default: 1, check: (v: number) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`) } as const;
const SETTINGS_TEXT = '`url` (http or https), `secret` (16 to 255 characters; made and answered once when absent), '
  + '`record_types`, `repositories` (URIs) and `kinds` (create, update, delete): lists, or null for all; `enabled`';

export function webhookEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: base, permission: 'administer_system', rawJsonBody: true,
      summary: `Create a webhook subscription (a JSON object: ${SETTINGS_TEXT}); it is sent the changes committed from now on`,
      handle: async (call) => json(await createSubscription(call.s, call.rawBody)),
    },
    {
      method: 'get', path: base, permission: 'administer_system', summary: 'List the webhook subscriptions (their secrets are never answered)',
      handle: async (call) => json(await listSubscriptions(call.s)),
    },
    {
      method: 'get', path: `${base}/:id`, permission: 'administer_system', params: [id], errors: ['NotFound'],
      summary: 'Get a webhook subscription: its settings, status (active or failing), last error and last change-log sequence delivered',
      handle: async (call) => json(await getSubscription(call.s, call.params.id)),
    },
    {
      method: 'post', path: `${base}/:id`, permission: 'administer_system', params: [id], rawJsonBody: true, errors: ['NotFound', 'Conflict'],
      summary: `Update a webhook subscription (a JSON object with \`lock_version\` and the settings to change: ${SETTINGS_TEXT}); a failing subscription is tried again`,
      handle: async (call) => json(await changeSubscription(call.s, call.params.id, call.rawBody)),
    },
    {
      method: 'delete', path: `${base}/:id`, permission: 'administer_system', params: [id], errors: ['NotFound'],
      summary: 'Delete a webhook subscription and its deliveries',
      handle: async (call) => json(await removeSubscription(call.s, call.params.id)),
    },
    {
      method: 'post', path: `${base}/:id/ping`, permission: 'administer_system', params: [id], errors: ['NotFound'],
      summary: 'Queue a test ping ({"kind": "ping"}, signed as every event), sent once in the background: its outcome shows in the deliveries',
      handle: async (call) => json(await queuePing(call.s, call.params.id)),
    },
    {
      method: 'get', path: `${base}/:id/deliveries`, permission: 'administer_system', params: [id, page, PAGE_SIZE_PARAM], errors: ['NotFound'],
      summary: "A page of the subscription's recent deliveries, newest first: each event with its status (delivered, retrying, pending, failed), response code and attempts",
      handle: async (call) => json(await listDeliveries(call.s, call.params.id, call.params.page, pageSize(call.s.config, call.params.page_size))),
    },
  ];
}
