import type { SegmentType } from "@polyforge/contracts/enums";
import type { SegmentResponse } from "@polyforge/contracts/segments";
import { and, asc, count, eq, ilike, inArray, ne, type SQL } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { blocksByIds } from "../building-blocks/queries";
import { blocksOfSegments } from "./queries";
import { type SegmentRow, segmentBlocks, segments } from "./schema";

export interface SegmentFilter {
  ownerId: string;
  systemId?: string;
  name?: string;
  types?: SegmentType[];
}

export interface NewSegment {
  name: string;
  type: SegmentType;
  data: Record<string, unknown>;
  blocks: Array<{ building_block_id: string; order: number; occurrence?: number; ratio?: number }>;
}

function filterCondition(filter: SegmentFilter): SQL | undefined {
  return and(
    eq(segments.ownerId, filter.ownerId),
    filter.systemId ? eq(segments.systemId, filter.systemId) : undefined,
    filter.name ? ilike(segments.name, containing(filter.name)) : undefined,
    filter.types?.length ? inArray(segments.type, filter.types) : undefined,
  );
}

/** One page of segments, oldest first (the order they were added in), and the total. */
export async function listSegments(db: Db, filter: SegmentFilter, page: Page) {
  const where = filterCondition(filter);
  const rows = await db
    .select()
    .from(segments)
    .where(where)
    .orderBy(asc(segments.createdAt), asc(segments.id))
    .limit(page.page_size)
    .offset(pageOffset(page));
  const [total] = await db.select({ n: count() }).from(segments).where(where);
  return { rows, total: total?.n ?? 0 };
}

export async function findSegment(db: Db, ownerId: string, id: string, lock = false): Promise<SegmentRow | undefined> {
  const query = db
    .select()
    .from(segments)
    .where(and(eq(segments.id, id), eq(segments.ownerId, ownerId)));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

/** The segments with their blocks (in order) and each block's name and type. */
export async function segmentResponses(db: Db, rows: SegmentRow[]): Promise<SegmentResponse[]> {
  if (rows.length === 0) return [];
  const links = await blocksOfSegments(
    db,
    rows.map((r) => r.id),
  );
  const blocks = await blocksByIds(db, [...new Set(links.map((l) => l.buildingBlockId))]);
  const blockById = new Map(blocks.map((b) => [b.id, b]));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    type: row.type,
    data: row.data,
    blocks: links
      .filter((l) => l.segmentId === row.id)
      .map((l) => {
        const block = blockById.get(l.buildingBlockId)!;
        return {
          building_block_id: l.buildingBlockId,
          order: l.blockOrder,
          occurrence: l.occurrence,
          ratio: l.ratio,
          building_block: { id: block.id, name: block.name, type: block.type },
        };
      }),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }));
}

export async function segmentBlockRows(db: Db, segmentId: string) {
  return db
    .select()
    .from(segmentBlocks)
    .where(eq(segmentBlocks.segmentId, segmentId))
    .orderBy(asc(segmentBlocks.blockOrder));
}

export async function nameTakenInSystem(db: Db, systemId: string, name: string, exceptId?: string): Promise<boolean> {
  const [row] = await db
    .select({ id: segments.id })
    .from(segments)
    .where(
      and(eq(segments.systemId, systemId), eq(segments.name, name), exceptId ? ne(segments.id, exceptId) : undefined),
    )
    .limit(1);
  return row !== undefined;
}

async function insertBlocks(tx: Db, segmentId: string, blocks: NewSegment["blocks"]): Promise<void> {
  await tx.insert(segmentBlocks).values(
    blocks.map((b) => ({
      segmentId,
      buildingBlockId: b.building_block_id,
      blockOrder: b.order,
      occurrence: b.occurrence ?? null,
      ratio: b.ratio ?? null,
    })),
  );
}

export async function insertSegment(
  tx: Db,
  owner: { ownerId: string; systemId: string },
  segment: NewSegment,
): Promise<SegmentRow> {
  const [row] = await tx
    .insert(segments)
    .values({ ...owner, name: segment.name, type: segment.type, data: segment.data })
    .returning();
  await insertBlocks(tx, row!.id, segment.blocks);
  return row!;
}

/** Replaces a segment's values and blocks (the caller holds the row lock). */
export async function replaceSegment(tx: Db, id: string, segment: NewSegment): Promise<SegmentRow> {
  const [row] = await tx
    .update(segments)
    .set({ name: segment.name, type: segment.type, data: segment.data, updatedAt: new Date() })
    .where(eq(segments.id, id))
    .returning();
  await tx.delete(segmentBlocks).where(eq(segmentBlocks.segmentId, id));
  await insertBlocks(tx, id, segment.blocks);
  return row!;
}

export async function deleteSegment(tx: Db, id: string): Promise<void> {
  await tx.delete(segments).where(eq(segments.id, id));
}

/** True when any segment uses the building block (BUILDING_BLOCK UPDATE IN_USE). */
export async function blockUsedBySegment(db: Db, buildingBlockId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: segmentBlocks.id })
    .from(segmentBlocks)
    .where(eq(segmentBlocks.buildingBlockId, buildingBlockId))
    .limit(1);
  return row !== undefined;
}
