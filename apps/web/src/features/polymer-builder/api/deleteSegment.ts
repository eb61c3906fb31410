import { api } from "../../../lib/api/client";

/** Deleted optimistically through useOptimisticDelete (SegmentsStep). */
export const deleteSegment = (id: string) => api.delete<null>(`/segments/${encodeURIComponent(id)}`);
