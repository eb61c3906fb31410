import { accountUpdateSchema } from "@polyforge/contracts/users";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";
import { ACCOUNT_QUERY_KEY } from "./getAccount";

// A type alias (not an interface) so the form library accepts it as a value record.
export type AccountUpdate = {
  first_name: string;
  last_name: string;
  allow_impersonation: boolean;
};

export const updateAccount = (body: AccountUpdate) => api.put<unknown>("/users/account", body);

/** Saves names and the remote-support toggle (as the contract has them), then refreshes the account. */
export function useUpdateAccount(mutationConfig?: MutationConfig<unknown, AccountUpdate>) {
  const queryClient = useQueryClient();
  const { onSuccess, ...rest } = mutationConfig ?? {};
  return useMutation({
    ...rest,
    mutationFn: (values: AccountUpdate) => updateAccount(accountUpdateSchema.parse(values)),
    onSuccess: async (...args) => {
      void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY });
      await onSuccess?.(...args);
    },
  });
}
