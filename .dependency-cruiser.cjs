// The import rules of docs/architecture.md, held by `npm run lint:imports` (part of `make lint`).
// Web: app → features → lib/contracts, features never importing each other.
// Server: routes → service → repository → platform; a module reads another module's data only
// through that module's service or its queries.ts; platform knows no module.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "web-feature-to-feature",
      comment: "A web feature never imports another feature; shared code goes to lib/ or contracts.",
      severity: "error",
      from: { path: "^apps/web/src/features/([^/]+)/" },
      to: { path: "^apps/web/src/features/([^/]+)/", pathNot: "^apps/web/src/features/$1/" },
    },
    {
      name: "web-lib-to-features",
      comment: "lib/ is below the features: it never imports one.",
      severity: "error",
      from: { path: "^apps/web/src/lib/" },
      to: { path: "^apps/web/src/(features|app)/" },
    },
    {
      name: "web-features-to-app",
      comment: "Features are below app/ (routes, layout, providers).",
      severity: "error",
      from: { path: "^apps/web/src/features/" },
      to: { path: "^apps/web/src/app/" },
    },
    {
      name: "server-platform-to-modules",
      comment: "platform/ is infrastructure every module uses; it knows no module.",
      severity: "error",
      from: { path: "^apps/server/src/platform/" },
      to: { path: "^apps/server/src/modules/" },
    },
    {
      name: "server-routes-to-repository",
      comment: "Routes call their service; only the service reaches the repository.",
      severity: "error",
      from: { path: "^apps/server/src/modules/[^/]+/routes(\\.ts$|/)" },
      to: { path: "^apps/server/src/modules/[^/]+/repository(\\.ts$|/)" },
    },
    {
      name: "server-module-to-other-module-data",
      comment:
        "A module reads another module's data only through that module's service or its queries.ts (its " +
        "repository and tables are its own). Table definitions may reference another module's tables for foreign keys.",
      severity: "error",
      from: { path: "^apps/server/src/modules/([^/]+)/", pathNot: "^apps/server/src/modules/[^/]+/schema\\.ts$" },
      to: {
        path: "^apps/server/src/modules/([^/]+)/(repository|schema)(\\.ts$|/)",
        pathNot: "^apps/server/src/modules/$1/",
      },
    },
    {
      name: "server-no-cycles",
      comment: "Modules wired in a cycle cannot be read (or initialised) one at a time.",
      severity: "error",
      from: { path: "^apps/server/src/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/|\\.test\\.tsx?$|/test/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
