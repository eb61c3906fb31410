import type { Db } from "../../platform/db/database";
import { type FeedbackRow, feedback } from "./schema";

export async function insertFeedback(
  db: Db,
  entry: Pick<FeedbackRow, "ownerId" | "title" | "description">,
): Promise<FeedbackRow> {
  const [row] = await db.insert(feedback).values(entry).returning();
  return row!;
}
