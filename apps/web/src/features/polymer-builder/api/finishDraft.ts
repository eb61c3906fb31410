import type { FinishDraftBody, SystemResponse } from "@polyforge/contracts/systems";
import { api } from "../../../lib/api/client";

/** Turns the draft into a system. No hook: CreateStep's success is a sequence (drop the builder's
 * cache, file under a project, refresh the systems, go to them) around its form. */
export const finishDraft = (id: string, body: FinishDraftBody) =>
  api.patch<SystemResponse>(`/systems/${encodeURIComponent(id)}/draft`, body);
