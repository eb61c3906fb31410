import { z } from "zod";
import { text } from "./bounds";

export const DEFAULT_FEEDBACK_TITLE = "User feedback";

export const feedbackSchema = z.object({
  title: text()
    .trim()
    .max(255)
    .optional()
    .transform((t) => (t ? t : DEFAULT_FEEDBACK_TITLE)),
  description: text().trim().min(1, "Required field").max(10_000),
});
export type FeedbackInput = z.input<typeof feedbackSchema>;
