import type { MolecularSystemDetailsForm } from "@polyforge/contracts/molecular-systems";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

export const createMolecularSystem = (body: MolecularSystemDetailsForm) => api.post<{ id: string }>("/systems", body);

/** Creates the system from the Details step (the page then moves to it; no cached list to refresh here). */
export const useCreateMolecularSystem = (mutationConfig?: MutationConfig<{ id: string }, MolecularSystemDetailsForm>) =>
  useMutation({ ...mutationConfig, mutationFn: (body: MolecularSystemDetailsForm) => createMolecularSystem(body) });
