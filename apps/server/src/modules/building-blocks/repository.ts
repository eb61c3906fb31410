import type { BlockType } from "@polyforge/contracts/enums";
import { and, asc, count, desc, eq, ilike, inArray, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { type BuildingBlockRow, buildingBlocks, type NewBuildingBlockRow } from "./schema";

export interface BlockListFilter {
  types?: BlockType[];
  /** Case-insensitive part of the name. */
  name?: string;
  archived: boolean;
  version?: number;
  /** Only blocks marked for the polymer builder's draft. */
  draftOnly?: boolean;
}

/** The caller's own blocks and the global (aminoacid) ones. */
function visibleTo(userId: string): SQL {
  return or(eq(buildingBlocks.ownerId, userId), isNull(buildingBlocks.ownerId)) as SQL;
}

/** The filter's conditions other than whose blocks they are. */
function filterConditions(filter: BlockListFilter): SQL[] {
  const conditions: SQL[] = [
    filter.archived ? isNotNull(buildingBlocks.archivedAt) : isNull(buildingBlocks.archivedAt),
  ];
  if (filter.types?.length) conditions.push(inArray(buildingBlocks.type, filter.types));
  if (filter.name) conditions.push(ilike(buildingBlocks.name, containing(filter.name)));
  if (filter.version !== undefined) conditions.push(eq(buildingBlocks.version, filter.version));
  if (filter.draftOnly) conditions.push(eq(buildingBlocks.draft, true));
  return conditions;
}

/** Most recently modified first; name and id make the order total. A new array each time: Drizzle
 * rewrites the columns of a set operation's ORDER BY in place. */
const listOrder = () => [desc(buildingBlocks.updatedAt), asc(buildingBlocks.name), asc(buildingBlocks.id)];

/** One page of the blocks the user can see, most recently modified first, and the total count.
 * The page is the merge of two ordered reads, the user's blocks and the global ones, each stopping
 * at the page's end (building_blocks_list_idx, migration 0014): an OR of the two would make the
 * database sort every visible block to find one page. */
export async function listBlocks(
  db: Db,
  userId: string,
  filter: BlockListFilter,
  page: Page,
): Promise<{ rows: BuildingBlockRow[]; total: number }> {
  const conditions = filterConditions(filter);
  const upTo = pageOffset(page) + page.page_size;
  const ordered = (owner: SQL) =>
    db
      .select()
      .from(buildingBlocks)
      .where(and(owner, ...conditions))
      .orderBy(...listOrder())
      .limit(upTo);
  const [rows, [totals]] = await Promise.all([
    unionAll(ordered(eq(buildingBlocks.ownerId, userId)), ordered(isNull(buildingBlocks.ownerId)))
      .orderBy(...listOrder())
      .limit(page.page_size)
      .offset(pageOffset(page)),
    db
      .select({ total: count() })
      .from(buildingBlocks)
      .where(and(visibleTo(userId), ...conditions)),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

/** A block the user can see (their own or a global one), archived or not. */
export async function findVisibleBlock(db: Db, userId: string, id: string): Promise<BuildingBlockRow | undefined> {
  const [row] = await db
    .select()
    .from(buildingBlocks)
    .where(and(eq(buildingBlocks.id, id), visibleTo(userId)));
  return row;
}

export async function insertBlocks(db: Db, blocks: NewBuildingBlockRow[]): Promise<BuildingBlockRow[]> {
  return db.insert(buildingBlocks).values(blocks).returning();
}

/** The owner's block made by the create with this Idempotency-Key, if any. */
export async function findBlockByIdempotencyKey(
  db: Db,
  ownerId: string,
  key: string,
): Promise<BuildingBlockRow | undefined> {
  const [row] = await db
    .select()
    .from(buildingBlocks)
    .where(and(eq(buildingBlocks.ownerId, ownerId), eq(buildingBlocks.idempotencyKey, key)));
  return row;
}

export type BlockChanges = Partial<Pick<BuildingBlockRow, "name" | "description" | "data" | "version" | "draft">> & {
  archived?: boolean;
};

/** Updates one of the user's own blocks (never a global one) and bumps updated_at. */
export async function updateOwnBlock(
  db: Db,
  userId: string,
  id: string,
  changes: BlockChanges,
): Promise<BuildingBlockRow | undefined> {
  const { archived, ...columns } = changes;
  const [row] = await db
    .update(buildingBlocks)
    .set({
      ...columns,
      ...(archived === undefined ? {} : { archivedAt: archived ? sql`now()` : null }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(buildingBlocks.id, id), eq(buildingBlocks.ownerId, userId)))
    .returning();
  return row;
}
