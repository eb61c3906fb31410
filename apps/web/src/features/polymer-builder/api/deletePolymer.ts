import { api } from "../../../lib/api/client";

/** Deleted optimistically through useOptimisticDelete (PolymersStep). */
export const deletePolymer = (id: string) => api.delete<null>(`/polymers/${encodeURIComponent(id)}`);
