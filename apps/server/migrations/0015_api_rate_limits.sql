-- The per-user write and processing-start limits counted in the database, as the
-- sign-in limits are, so that every API instance counts against one limit (each kept its own count
-- in memory, so two instances allowed twice as much). One row per key and fixed window; rows of
-- windows that have ended are swept.
CREATE TABLE IF NOT EXISTS "api_rate_limits" (
	"key" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "api_rate_limits_pkey" PRIMARY KEY ("key","window_start")
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "api_rate_limits_window_idx" ON "api_rate_limits" USING btree ("window_start");
