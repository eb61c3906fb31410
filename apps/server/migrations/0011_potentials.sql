-- Issue 21: potentials of systems from a file or a SMILES. A row is also its own job (like
-- system_executions): a generated potential waits for a runner (waiting_for_resources → processing),
-- an uploaded one's .top waits for validate-topology (pending_validation → validating); the runner's
-- lease columns are the shared claim's (platform/jobs/claim.ts).
CREATE TABLE "potentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"system_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sanitized_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"origin" text NOT NULL,
	"system_type" text DEFAULT 'not_defined' NOT NULL,
	"status" text NOT NULL,
	"parameters" jsonb,
	"input" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"file" text,
	"file_size" bigint,
	"upload_id" text,
	"progress" real DEFAULT 0 NOT NULL,
	"stage" text,
	"error_code" text,
	"error_message" text,
	"problem" jsonb,
	"result" jsonb,
	"result_files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scheduler_reason" text,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "potentials_origin_check" CHECK ("origin" IN ('generate', 'upload'))
);
--> statement-breakpoint
ALTER TABLE "potentials" ADD CONSTRAINT "potentials_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "potentials" ADD CONSTRAINT "potentials_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "potentials_system_idx" ON "potentials" USING btree ("system_id","created_at");--> statement-breakpoint
CREATE INDEX "potentials_claim_idx" ON "potentials" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "potentials_held_idx" ON "potentials" USING btree ("owner_id") WHERE "potentials"."lease_owner" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "potentials_one_draft_per_system" ON "potentials" USING btree ("system_id") WHERE "potentials"."origin" = 'upload' AND "potentials"."status" IN ('pending_upload', 'uploading');
