-- Issue 22: a polymer's tacticity (how the engine sets its prochiral backbone centres) and, for
-- atactic, the meso fraction. Polymers saved before it existed are atactic with 0.5.
ALTER TABLE "polymers" ADD COLUMN "tacticity" text DEFAULT 'atactic' NOT NULL;--> statement-breakpoint
ALTER TABLE "polymers" ADD COLUMN "meso_fraction" double precision DEFAULT 0.5 NOT NULL;--> statement-breakpoint
ALTER TABLE "polymers" ADD CONSTRAINT "polymers_tacticity_check" CHECK ("tacticity" IN ('atactic', 'isotactic', 'syndiotactic', 'as_drawn'));--> statement-breakpoint
ALTER TABLE "polymers" ADD CONSTRAINT "polymers_meso_fraction_check" CHECK ("meso_fraction" >= 0 AND "meso_fraction" <= 1);
