import { CELL_DIMENSION_SELECTORS, CONSTRUCTION_ORDERS, ENSEMBLES, EQUILIBRATIONS } from "@polyforge/contracts/enums";
import { SIMULATIONS } from "@polyforge/contracts/polymer-builder";
import {
  boolean,
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "../../platform/identity/schema";
import { polymers } from "../polymers/schema";
import { systems } from "../systems/schema";

/** The system setup of a polymer-builder system (SPEC §3), one per system, created with defaults. */
export const systemSetups = pgTable(
  "system_setups",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    cellDimensionSelector: text("cell_dimension_selector", { enum: CELL_DIMENSION_SELECTORS }).notNull(),
    density: doublePrecision("density"),
    cellSides: jsonb("cell_sides").$type<number[]>(),
    potentialWallZ: boolean("potential_wall_z").notNull().default(false),
    constructionOrder: text("construction_order", { enum: CONSTRUCTION_ORDERS }).notNull(),
    /** Set when the user saves the setup (step 4 complete); null while it holds the defaults. */
    savedAt: timestamp("saved_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("system_setups_system_key").on(t.systemId)],
);

/** The polymers placed in the cell, in order, each `occurrence` copies. Deleting a polymer takes it
 * out of the setup. */
export const systemSetupPolymers = pgTable(
  "system_setup_polymers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    setupId: uuid("setup_id")
      .notNull()
      .references(() => systemSetups.id, { onDelete: "cascade" }),
    polymerId: uuid("polymer_id")
      .notNull()
      .references(() => polymers.id, { onDelete: "cascade" }),
    polymerOrder: integer("polymer_order").notNull(),
    occurrence: integer("occurrence").notNull(),
  },
  (t) => [uniqueIndex("system_setup_polymers_order_key").on(t.setupId, t.polymerOrder)],
);

/** The simulation protocol of a polymer-builder system (SPEC §3), one per system. */
export const simulationProtocols = pgTable(
  "simulation_protocols",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: uuid("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    systemId: uuid("system_id")
      .notNull()
      .references(() => systems.id, { onDelete: "cascade" }),
    simulation: text("simulation", { enum: SIMULATIONS }).notNull(),
    randomSeed: integer("random_seed").notNull(),
    minimization: boolean("minimization").notNull(),
    minimizationSteps: integer("minimization_steps"),
    dynamics: boolean("dynamics").notNull(),
    dynamicsSteps: integer("dynamics_steps"),
    temperature: doublePrecision("temperature"),
    ensemble: text("ensemble", { enum: ENSEMBLES }),
    /** bar (NPT and the melt equilibration's last stage); migration 0009. */
    pressure: doublePrecision("pressure"),
    equilibration: text("equilibration", { enum: EQUILIBRATIONS }).notNull().default("none"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("simulation_protocols_system_key").on(t.systemId)],
);

export type SystemSetupRow = typeof systemSetups.$inferSelect;
export type SimulationProtocolRow = typeof simulationProtocols.$inferSelect;
