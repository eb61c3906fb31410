import type { Db } from "../../platform/db/database";
import { insertFeedback } from "./repository";
import type { FeedbackRow } from "./schema";

/** Stores what a user sent from the feedback modal. */
export async function sendFeedback(
  db: Db,
  ownerId: string,
  entry: Pick<FeedbackRow, "title" | "description">,
): Promise<FeedbackRow> {
  return insertFeedback(db, { ownerId, title: entry.title, description: entry.description });
}
