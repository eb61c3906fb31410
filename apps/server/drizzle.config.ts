import { defineConfig } from "drizzle-kit";

// Every table lives in a `schema.ts` next to the code that owns it; one migration history.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/**/schema.ts",
  out: "./migrations",
});
