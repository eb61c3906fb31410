CREATE TABLE "building_blocks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"description" text,
	"version" integer DEFAULT 0 NOT NULL,
	"draft" boolean DEFAULT false NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "building_blocks_type_check" CHECK ("building_blocks"."type" IN ('linear', 'dendrimer', 'aminoacid')),
	CONSTRAINT "building_blocks_owner_check" CHECK (("building_blocks"."type" = 'aminoacid') = ("building_blocks"."owner_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "building_blocks" ADD CONSTRAINT "building_blocks_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "building_blocks_owner_idx" ON "building_blocks" USING btree ("owner_id","updated_at");