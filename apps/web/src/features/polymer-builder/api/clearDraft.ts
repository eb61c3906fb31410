import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { queryKeys } from "./builderKeys";
import { createDraft } from "./getDraft";

export const deleteDraft = () => api.delete<null>("/systems/draft");

/** Deletes the draft and starts a new one before any list is read again. */
export async function clearDraft() {
  await deleteDraft();
  await createDraft();
}

/** Clears the draft; the caller's onSuccess runs first (close the modal, back to step 1), then every
 * builder query is reset. */
export function useClearDraft(mutationConfig?: MutationConfig<void>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: clearDraft,
    onSuccess: async (...args) => {
      await onSuccess?.(...args);
      await queryClient.resetQueries({ queryKey: queryKeys.all });
    },
  });
}
