-- Issue 22: NPT (pressure in bar) and the melt equilibration preset of the simulation protocol.
ALTER TABLE "simulation_protocols" ADD COLUMN "pressure" double precision;--> statement-breakpoint
ALTER TABLE "simulation_protocols" ADD COLUMN "equilibration" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
-- Drafts saved before NPT existed show the default pressure when the user picks NPT.
UPDATE "simulation_protocols" SET "pressure" = 1 WHERE "pressure" IS NULL;
