CREATE TABLE "system_executions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"system_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"status" text DEFAULT 'waiting_for_resources' NOT NULL,
	"progress" real DEFAULT 0 NOT NULL,
	"stage" text,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"seed" integer,
	"versions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error_code" text,
	"error_message" text,
	"result_files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "system_executions" ADD CONSTRAINT "system_executions_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "system_executions" ADD CONSTRAINT "system_executions_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "system_executions_system_idx" ON "system_executions" USING btree ("system_id","created_at");--> statement-breakpoint
CREATE INDEX "system_executions_claim_idx" ON "system_executions" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "system_executions_one_active_per_system" ON "system_executions" USING btree ("system_id") WHERE "system_executions"."status" IN ('waiting_for_resources', 'processing', 'running');