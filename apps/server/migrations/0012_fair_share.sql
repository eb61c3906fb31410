-- Issue 23: every claim counts the jobs each user holds and finds when each user's last job
-- started (fair share of the job slots); the detail page shows the simulated time and time
-- left of a run's dynamics, and what happened to a run taken back after its server stopped.
CREATE INDEX IF NOT EXISTS "system_executions_held_idx" ON "system_executions" USING btree ("owner_id") WHERE "lease_owner" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "structure_jobs_held_idx" ON "structure_jobs" USING btree ("owner_id") WHERE "lease_owner" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "system_executions_served_idx" ON "system_executions" USING btree ("owner_id","started_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "structure_jobs_served_idx" ON "structure_jobs" USING btree ("owner_id","started_at");--> statement-breakpoint
ALTER TABLE "system_executions" ADD COLUMN "simulated_ns" real;--> statement-breakpoint
ALTER TABLE "system_executions" ADD COLUMN "total_ns" real;--> statement-breakpoint
ALTER TABLE "system_executions" ADD COLUMN "remaining_seconds" real;--> statement-breakpoint
ALTER TABLE "system_executions" ADD COLUMN "notice" text;
