import { feedbackSchema } from "@polyforge/contracts/feedback";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../../lib/api/client";
import type { MutationConfig } from "../../../lib/api/mutationConfig";

// A type alias (not an interface) so the form library accepts it as a value record.
export type FeedbackValues = {
  title: string;
  description: string;
};

/** PUT /api/v2/feedback (SPEC §7): the form's values as the contract has them (title optional). */
export const sendFeedback = (values: FeedbackValues) => api.put<unknown>("/feedback", feedbackSchema.parse(values));

/** Sends the feedback (nothing cached to refresh). */
export const useSendFeedback = (mutationConfig?: MutationConfig<unknown, FeedbackValues>) =>
  useMutation({ ...mutationConfig, mutationFn: sendFeedback });
