-- Issue 27: the indexes the API lists' filters and sorting need, so that a page reads its rows in
-- order from an index and stops at the page's end instead of sorting all of the user's rows.
-- The systems catalogue (finished, not archived; newest first; optionally one type).
CREATE INDEX IF NOT EXISTS "systems_catalogue_idx" ON "systems" USING btree ("owner_id","updated_at" DESC,"id" DESC) WHERE NOT "is_draft" AND "archived_at" IS NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "systems_catalogue_type_idx" ON "systems" USING btree ("owner_id","type","updated_at" DESC,"id" DESC) WHERE NOT "is_draft" AND "archived_at" IS NULL;--> statement-breakpoint
-- The building blocks list (a user's own and the global ones, each read in this order and merged).
CREATE INDEX IF NOT EXISTS "building_blocks_list_idx" ON "building_blocks" USING btree ("owner_id","updated_at" DESC,"name","id") WHERE "archived_at" IS NULL;--> statement-breakpoint
-- A draft's polymers (filtered by system, oldest first); also the system's cascade on delete.
CREATE INDEX IF NOT EXISTS "polymers_system_idx" ON "polymers" USING btree ("system_id","created_at","id");
