import { feedbackSchema } from "@polyforge/contracts/feedback";
import { api } from "../../lib/api/client";

export type FeedbackValues = {
  title: string;
  description: string;
};

/** PUT /api/v2/feedback (SPEC §7): the form's values as the contract has them (title optional). */
export const sendFeedback = (values: FeedbackValues) => api.put<unknown>("/feedback", feedbackSchema.parse(values));
