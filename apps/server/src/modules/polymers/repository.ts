import type { ForceField, Tacticity } from "@polyforge/contracts/enums";
import type { PolymerResponse } from "@polyforge/contracts/polymers";
import { and, asc, count, eq, ilike, type SQL } from "drizzle-orm";
import type { Db } from "../../platform/db/database";
import { containing } from "../../platform/db/like";
import { type Page, pageOffset } from "../../platform/pagination";
import { segmentsByIds } from "../segments/queries";
import { segmentsOfPolymers } from "./queries";
import { type PolymerRow, polymerSegments, polymers } from "./schema";

export interface NewPolymer {
  name: string;
  forceField: ForceField;
  segments: Array<{ segment_id: string; occurrence: number; order: number }>;
  tacticity: Tacticity;
  mesoFraction: number;
}

export async function listPolymers(db: Db, filter: { ownerId: string; systemId?: string; name?: string }, page: Page) {
  const where: SQL | undefined = and(
    eq(polymers.ownerId, filter.ownerId),
    filter.systemId ? eq(polymers.systemId, filter.systemId) : undefined,
    filter.name ? ilike(polymers.name, containing(filter.name)) : undefined,
  );
  const rows = await db
    .select()
    .from(polymers)
    .where(where)
    .orderBy(asc(polymers.createdAt), asc(polymers.id))
    .limit(page.page_size)
    .offset(pageOffset(page));
  const [total] = await db.select({ n: count() }).from(polymers).where(where);
  return { rows, total: total?.n ?? 0 };
}

export async function findPolymer(db: Db, ownerId: string, id: string, lock = false): Promise<PolymerRow | undefined> {
  const query = db
    .select()
    .from(polymers)
    .where(and(eq(polymers.id, id), eq(polymers.ownerId, ownerId)));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

/** The polymers with their segments in order (and each segment's name and type). */
export async function polymerResponses(db: Db, rows: PolymerRow[]): Promise<PolymerResponse[]> {
  if (rows.length === 0) return [];
  const links = await segmentsOfPolymers(
    db,
    rows.map((r) => r.id),
  );
  const segmentById = new Map(
    (await segmentsByIds(db, [...new Set(links.map((l) => l.segmentId))])).map((s) => [s.id, s]),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    force_field: row.forceField,
    tacticity: { kind: row.tacticity, meso_fraction: row.mesoFraction },
    segments: links
      .filter((l) => l.polymerId === row.id)
      .map((l) => {
        const segment = segmentById.get(l.segmentId)!;
        return {
          segment_id: l.segmentId,
          occurrence: l.occurrence,
          order: l.segmentOrder,
          segment: { id: segment.id, name: segment.name, type: segment.type },
        };
      }),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }));
}

export async function polymerSegmentRows(db: Db, polymerId: string) {
  return db
    .select()
    .from(polymerSegments)
    .where(eq(polymerSegments.polymerId, polymerId))
    .orderBy(asc(polymerSegments.segmentOrder));
}

async function insertLinks(tx: Db, polymerId: string, links: NewPolymer["segments"]): Promise<void> {
  await tx
    .insert(polymerSegments)
    .values(
      links.map((s) => ({ polymerId, segmentId: s.segment_id, segmentOrder: s.order, occurrence: s.occurrence })),
    );
}

export async function insertPolymer(
  tx: Db,
  owner: { ownerId: string; systemId: string },
  polymer: NewPolymer,
): Promise<PolymerRow> {
  const [row] = await tx
    .insert(polymers)
    .values({
      ...owner,
      name: polymer.name,
      forceField: polymer.forceField,
      tacticity: polymer.tacticity,
      mesoFraction: polymer.mesoFraction,
    })
    .returning();
  await insertLinks(tx, row!.id, polymer.segments);
  return row!;
}

export async function replacePolymer(tx: Db, id: string, polymer: NewPolymer): Promise<PolymerRow> {
  const [row] = await tx
    .update(polymers)
    .set({
      name: polymer.name,
      forceField: polymer.forceField,
      tacticity: polymer.tacticity,
      mesoFraction: polymer.mesoFraction,
      updatedAt: new Date(),
    })
    .where(eq(polymers.id, id))
    .returning();
  await tx.delete(polymerSegments).where(eq(polymerSegments.polymerId, id));
  await insertLinks(tx, id, polymer.segments);
  return row!;
}

export async function deletePolymerRow(tx: Db, id: string): Promise<void> {
  await tx.delete(polymers).where(eq(polymers.id, id));
}
