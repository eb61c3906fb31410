// The import rules of docs/architecture.md ("Rules"), held by `npm run lint:imports` (part of
// `make lint`); apps/server/test/import-rules.test.ts breaks each one on purpose in a fixture tree.
// Web: app → features → lib/components/contracts, features never importing each other.
// Server: roots (app.ts, jobs.ts, main.ts, worker.ts) → modules, each on a floor and importing only
// modules on lower floors, through their service.ts or queries.ts → platform, which knows no module.

/** The server's modules, lowest floor first: a module imports only modules on lower floors. The one
 * list the floor rules are generated from; a module folder not in it fails the lint. */
const SERVER_FLOORS = [
  ["systems", "building-blocks", "users", "feedback", "notifications", "health", "features", "client-config"],
  ["segments", "molecular-systems", "system-executions", "projects"],
  ["polymers", "potentials"],
  ["polymer-builder"],
  ["catalogue"],
];

const MODULES = "^apps/server/src/modules/";
const any = (names) => `(${names.join("|")})`;

/** S1: one rule per module, forbidding every module on its floor or above but itself. */
const floorRules = SERVER_FLOORS.flatMap((floor, index) =>
  floor.flatMap((module) => {
    const notBelow = SERVER_FLOORS.slice(index)
      .flat()
      .filter((other) => other !== module);
    if (notBelow.length === 0) return [];
    return [
      {
        name: "server-floors",
        comment: `modules/${module} is on floor ${index + 1}: it imports only modules on lower floors (a module above that must be told something registers a hook in modules/wiring.ts).`,
        severity: "error",
        from: { path: `${MODULES}${module}/` },
        to: { path: `${MODULES}${any(notBelow)}/` },
      },
    ];
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "web-feature-to-feature",
      comment: "W2: a web feature never imports another feature; shared code goes to lib/, components/ or contracts.",
      severity: "error",
      from: { path: "^apps/web/src/features/([^/]+)/" },
      to: { path: "^apps/web/src/features/([^/]+)/", pathNot: "^apps/web/src/features/$1/" },
    },
    {
      name: "web-shared-to-features",
      comment: "W1: lib/ and components/ are below the features and app/: they never import them.",
      severity: "error",
      from: { path: "^apps/web/src/(lib|components)/" },
      to: { path: "^apps/web/src/(features|app)/" },
    },
    {
      name: "web-features-to-app",
      comment: "Features are below app/ (routes, layout, providers).",
      severity: "error",
      from: { path: "^apps/web/src/features/" },
      to: { path: "^apps/web/src/app/" },
    },
    ...floorRules,
    {
      name: "server-module-without-floor",
      comment: "S1: every module folder has its floor in SERVER_FLOORS (.dependency-cruiser.cjs).",
      severity: "error",
      from: { path: `${MODULES}[^/]+/`, pathNot: `${MODULES}${any(SERVER_FLOORS.flat())}/` },
      to: {},
    },
    {
      name: "server-top-floor-from-app",
      comment: "S1: the top floor (the catalogue) is registered by app.ts and imported by nothing else.",
      severity: "error",
      from: { pathNot: [`^apps/server/src/app\\.ts$`, `${MODULES}${any(SERVER_FLOORS.at(-1))}/`] },
      to: { path: `${MODULES}${any(SERVER_FLOORS.at(-1))}/` },
    },
    {
      name: "server-module-context-to-modules",
      comment:
        "S1: module-context.ts, which every module's routes import, types its runners in platform/jobs and imports no module.",
      severity: "error",
      from: { path: `${MODULES}module-context\\.ts$` },
      to: { path: `${MODULES}[^/]+/` },
    },
    {
      name: "server-wiring-from-app",
      comment: "S1: modules/wiring.ts, the one place a lower module learns of a higher one, is called by app.ts only.",
      severity: "error",
      from: { pathNot: "^apps/server/src/app\\.ts$" },
      to: { path: `${MODULES}wiring\\.ts$` },
    },
    {
      name: "server-module-surface",
      comment:
        "S2: a module reaches another module only through its service.ts or its queries.ts (its repository, " +
        "queues and tables are its own).",
      severity: "error",
      from: { path: `${MODULES}([^/]+)/`, pathNot: `${MODULES}[^/]+/schema\\.ts$` },
      to: { path: `${MODULES}[^/]+/`, pathNot: [`${MODULES}$1/`, `${MODULES}[^/]+/(service|queries)\\.ts$`] },
    },
    {
      name: "server-schema-surface",
      comment: "S2: a table definition references another module's tables (foreign keys) and nothing else of it.",
      severity: "error",
      from: { path: `${MODULES}([^/]+)/schema\\.ts$` },
      to: { path: `${MODULES}[^/]+/`, pathNot: [`${MODULES}$1/`, `${MODULES}[^/]+/schema\\.ts$`] },
    },
    {
      name: "server-routes-to-repository",
      comment: "Routes call their service; only the service (and its module's queue) reaches the repository.",
      severity: "error",
      from: { path: `${MODULES}[^/]+/routes(\\.ts$|/)` },
      to: { path: `${MODULES}[^/]+/repository(\\.ts$|/)` },
    },
    {
      name: "server-sql-in-data-files",
      comment:
        "S3: SQL (drizzle-orm, other than types) is written only in a module's repository.ts, queries.ts and " +
        "schema.ts, and in platform/db, platform/jobs (the claim, the job columns) and platform/identity (the " +
        "embedded provider's own storage).",
      severity: "error",
      from: {
        path: "^apps/server/src/",
        pathNot: `(${MODULES}[^/]+/(repository|queries|schema)\\.ts$|^apps/server/src/platform/(db|jobs|identity)/)`,
      },
      to: { path: "(^|/)node_modules/drizzle-orm/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "server-roots-on-top",
      comment: "S4: the composition roots (app.ts, jobs.ts, main.ts, worker.ts) import; nothing imports them.",
      severity: "error",
      from: { path: "^apps/server/src/(modules|platform)/" },
      to: { path: "^apps/server/src/(app|jobs|main|worker)\\.ts$" },
    },
    {
      name: "server-platform-to-modules",
      comment: "S4: platform/ is infrastructure every module uses; it knows no module.",
      severity: "error",
      from: { path: "^apps/server/src/platform/" },
      to: { path: MODULES },
    },
    {
      name: "no-cycles",
      comment: "S5: files wired in a cycle cannot be read (or initialised) one at a time.",
      severity: "error",
      from: { path: "^(apps/server/src|apps/web/src|packages/contracts/src)/" },
      to: { circular: true },
    },
  ],
  options: {
    // Packages are shown (S3 reads drizzle-orm's imports) but not followed.
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)dist/|\\.test\\.tsx?$|/test/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
