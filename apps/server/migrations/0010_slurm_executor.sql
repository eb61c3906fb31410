-- Issue 26: executions run by a scheduler (Slurm) keep the scheduler's job id, so a restarted
-- server follows the job again instead of submitting it twice, and the scheduler's reason for a
-- waiting job (Resources, Priority, …), which the detail page shows.
ALTER TABLE "system_executions" ADD COLUMN "scheduler_job_id" text;--> statement-breakpoint
ALTER TABLE "system_executions" ADD COLUMN "scheduler_reason" text;
