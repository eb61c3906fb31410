/** Every cached query of the API's /systems resource starts with this key (catalogue pages, details,
 * structures, potentials, a project's systems), so one invalidation refreshes them all: after a
 * save in any feature, and on a status notification (lib/notifications/liveUpdates). */
export const SYSTEMS_QUERY_KEY = ["systems"] as const;
