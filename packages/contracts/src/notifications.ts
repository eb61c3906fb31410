/** Message types pushed on /api/v2/notifications/ (SPEC §4). Each invalidates cached systems data. */
export const NOTIFICATION_TYPES = [
  "uploaded_potential_status_updated",
  "system_execution_status_updated",
  "uploaded_system_status_updated",
  "system_conversion_status_updated",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NotificationMessage {
  message_type: NotificationType;
  [key: string]: unknown;
}

/** Reconnect or poll delay of SPEC §9. */
export const NOTIFICATION_RETRY_MS = 3000;
export const SYSTEMS_POLL_MS = 5000;
