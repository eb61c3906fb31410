import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { FastifyBaseLogger as Logger } from "fastify";
import pg from "pg";
import { MIGRATIONS_DIR } from "../paths";

/** The Drizzle handle every repository takes: the same API over PGlite and node-postgres. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** Where the data lives: embedded PGlite (a directory, or `memory://`) or a PostgreSQL server. */
export type DatabaseTarget = { kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string };

export type NotificationHandler = (payload: string) => void;

/** NOTIFY on a channel, as a statement of `db`: inside a transaction PostgreSQL sends it when
 * (and only if) the transaction commits. The other half of Database.listen. */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${channel}, ${payload})`);
}

export interface Database {
  db: Db;
  kind: DatabaseTarget["kind"];
  /** True when a trivial query answers. */
  ping(): Promise<boolean>;
  /** LISTEN on a channel; the returned function stops listening. */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The embedded default (ARCHITECTURE §1): PGlite under `<dataDir>/pg`, unless DATABASE_URL is set. */
export function databaseTarget(settings: { databaseUrl: string | undefined; dataDir: string }): DatabaseTarget {
  if (settings.databaseUrl) return { kind: "postgres", url: settings.databaseUrl };
  return { kind: "pglite", dataDir: join(settings.dataDir, "pg") };
}

/** Opens the database and applies the pending migrations. */
export async function openDatabase(target: DatabaseTarget, logger: Logger): Promise<Database> {
  return target.kind === "pglite" ? openPglite(target.dataDir) : openPostgres(target.url, logger);
}

async function openPglite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client);
  await migratePglite(db, { migrationsFolder: MIGRATIONS_DIR });
  return {
    db,
    kind: "pglite",
    ping: () => ping(db),
    // PGlite is one in-process session; it hears its own NOTIFYs, so LISTEN works as on a server.
    listen: async (channel, handler) => {
      const unlisten = await client.listen(channel, handler);
      return () => unlisten();
    },
    close: () => client.close(),
  };
}

/** Serialises migrations when several API instances start against one server at once. */
const MIGRATION_LOCK_KEY = 7_301_000_001;

async function openPostgres(url: string, logger: Logger): Promise<Database> {
  const migrationClient = new pg.Client({ connectionString: url });
  await migrationClient.connect();
  try {
    await migrationClient.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrateNodePg(drizzleNodePg(migrationClient), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await migrationClient.end();
  }

  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on("error", (err) => logger.warn({ err }, "PostgreSQL pool client error"));
  const db = drizzleNodePg(pool);
  const listener = new PostgresListener(url, logger);
  return {
    db,
    kind: "postgres",
    ping: () => ping(db),
    listen: (channel, handler) => listener.listen(channel, handler),
    close: async () => {
      await listener.close();
      await pool.end();
    },
  };
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`SELECT 1`);
    return true;
  } catch {
    return false;
  }
}

const RECONNECT_DELAY_MS = 1000;

/** node-postgres delivers notifications only to the connection that LISTENs, so listening needs a
 * dedicated client, not a pooled one. It reconnects and re-LISTENs if the connection drops. */
class PostgresListener {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    let channelHandlers = this.handlers.get(channel);
    if (!channelHandlers) {
      channelHandlers = new Set();
      this.handlers.set(channel, channelHandlers);
      const client = await this.connection();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    }
    channelHandlers.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      if (this.client && !this.closed) await this.client.query(`UNLISTEN ${this.client.escapeIdentifier(channel)}`);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? "");
    });
    client.on("error", (err) => {
      this.logger.warn({ err }, "PostgreSQL LISTEN connection lost; reconnecting");
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      setTimeout(() => void this.resubscribe(), RECONNECT_DELAY_MS).unref();
    });
    await client.connect();
    this.client = client;
    return client;
  }

  private async resubscribe(): Promise<void> {
    if (this.closed || this.handlers.size === 0) return;
    try {
      const client = await this.connection();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (err) {
      this.logger.warn({ err }, "PostgreSQL LISTEN reconnect failed; retrying");
      setTimeout(() => void this.resubscribe(), RECONNECT_DELAY_MS).unref();
    }
  }
}
