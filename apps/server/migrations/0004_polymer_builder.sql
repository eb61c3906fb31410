CREATE TABLE "simulation_protocols" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"system_id" uuid NOT NULL,
	"simulation" text NOT NULL,
	"random_seed" integer NOT NULL,
	"minimization" boolean NOT NULL,
	"minimization_steps" integer,
	"dynamics" boolean NOT NULL,
	"dynamics_steps" integer,
	"temperature" double precision,
	"ensemble" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "system_setup_polymers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"setup_id" uuid NOT NULL,
	"polymer_id" uuid NOT NULL,
	"polymer_order" integer NOT NULL,
	"occurrence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "system_setups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"system_id" uuid NOT NULL,
	"cell_dimension_selector" text NOT NULL,
	"density" double precision,
	"cell_sides" jsonb,
	"potential_wall_z" boolean DEFAULT false NOT NULL,
	"construction_order" text NOT NULL,
	"saved_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "polymer_segments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"polymer_id" uuid NOT NULL,
	"segment_id" uuid NOT NULL,
	"segment_order" integer NOT NULL,
	"occurrence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "polymers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"system_id" uuid NOT NULL,
	"name" text NOT NULL,
	"force_field" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "segment_blocks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"segment_id" uuid NOT NULL,
	"building_block_id" uuid NOT NULL,
	"block_order" integer NOT NULL,
	"occurrence" integer,
	"ratio" integer
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"system_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "systems" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"sanitized_name" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"origin" text NOT NULL,
	"type" text DEFAULT 'not_defined' NOT NULL,
	"is_draft" boolean DEFAULT false NOT NULL,
	"system_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"engine_job" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "simulation_protocols" ADD CONSTRAINT "simulation_protocols_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulation_protocols" ADD CONSTRAINT "simulation_protocols_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "system_setup_polymers" ADD CONSTRAINT "system_setup_polymers_setup_id_system_setups_id_fk" FOREIGN KEY ("setup_id") REFERENCES "public"."system_setups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "system_setup_polymers" ADD CONSTRAINT "system_setup_polymers_polymer_id_polymers_id_fk" FOREIGN KEY ("polymer_id") REFERENCES "public"."polymers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "system_setups" ADD CONSTRAINT "system_setups_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "system_setups" ADD CONSTRAINT "system_setups_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polymer_segments" ADD CONSTRAINT "polymer_segments_polymer_id_polymers_id_fk" FOREIGN KEY ("polymer_id") REFERENCES "public"."polymers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polymer_segments" ADD CONSTRAINT "polymer_segments_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polymers" ADD CONSTRAINT "polymers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polymers" ADD CONSTRAINT "polymers_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_blocks" ADD CONSTRAINT "segment_blocks_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_blocks" ADD CONSTRAINT "segment_blocks_building_block_id_building_blocks_id_fk" FOREIGN KEY ("building_block_id") REFERENCES "public"."building_blocks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_system_id_systems_id_fk" FOREIGN KEY ("system_id") REFERENCES "public"."systems"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "systems" ADD CONSTRAINT "systems_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "simulation_protocols_system_key" ON "simulation_protocols" USING btree ("system_id");--> statement-breakpoint
CREATE UNIQUE INDEX "system_setup_polymers_order_key" ON "system_setup_polymers" USING btree ("setup_id","polymer_order");--> statement-breakpoint
CREATE UNIQUE INDEX "system_setups_system_key" ON "system_setups" USING btree ("system_id");--> statement-breakpoint
CREATE UNIQUE INDEX "polymer_segments_order_key" ON "polymer_segments" USING btree ("polymer_id","segment_order");--> statement-breakpoint
CREATE INDEX "polymer_segments_segment_idx" ON "polymer_segments" USING btree ("segment_id");--> statement-breakpoint
CREATE INDEX "polymers_owner_idx" ON "polymers" USING btree ("owner_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "segment_blocks_order_key" ON "segment_blocks" USING btree ("segment_id","block_order");--> statement-breakpoint
CREATE INDEX "segment_blocks_block_idx" ON "segment_blocks" USING btree ("building_block_id");--> statement-breakpoint
CREATE INDEX "segments_owner_idx" ON "segments" USING btree ("owner_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "segments_system_name_key" ON "segments" USING btree ("system_id","name");--> statement-breakpoint
CREATE INDEX "systems_owner_idx" ON "systems" USING btree ("owner_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "systems_one_draft_per_owner" ON "systems" USING btree ("owner_id") WHERE "systems"."is_draft";