import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

// A type alias (not an interface) so the form library accepts it as a value record.
export type PasswordChange = {
  current_password: string;
  new_password: string;
  confirm_new_password: string;
};

export const changePassword = (body: PasswordChange) => api.put<unknown>("/users/password", body);

/** Changes the password (nothing cached to refresh). */
export const useChangePassword = (mutationConfig?: MutationConfig<unknown, PasswordChange>) =>
  useMutation({ ...mutationConfig, mutationFn: changePassword });
